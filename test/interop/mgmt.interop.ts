// `npm run test:interop:mgmt`: upstream's `ziti` CLI (v1.1.8) runs `ziti fabric validate …`, `ziti fabric inspect …`
// and `ziti fabric stream events` against upstream v1.1.8 and against ours, each with a real v1.1.8 edge router and
// the same entities: a service with a terminator the router hosts none of. The validations must print the same lines
// once each controller's ids are replaced by names; the inspections must answer from the same sources.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { stripVTControlCharacters } from 'node:util';
import { rmSync, writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ADMIN_PASSWORD, ADMIN_USERNAME } from '../upstream/peers.js';
import { zitiEnv } from '../../scripts/upstream.js';
import { EventStream } from './event-stream.js';
import {
  create,
  echoService,
  enrolledIdentity,
  findZiti,
  openPolicies,
  startEchoServer,
  zcat,
  startController,
  startRouter,
  tempDir,
  type ControllerKind,
  type NetworkController,
  type Router,
} from './network.js';
import { zitiCli, type ZitiCli } from './ziti-cli.js';

const binary = findZiti();

/** What upstream's Network.Inspect answers for the controller itself (and the instant sync strategy's one). */
const CONTROLLER_VALUES = [
  'stackdump',
  'config',
  'metrics',
  'cluster-config',
  'connected-routers',
  'connected-peers',
  'router-messaging',
  'router-data-model',
];

interface Side {
  kind: ControllerKind;
  controller: NetworkController;
  router: Router;
  ziti: ZitiCli;
  work: string;
  home: string;
  /** id → name, for the entities this test made (and the controller's own id). */
  names: Map<string, string>;
}

/** Output lines with ids replaced by names, times blanked, sorted (the CLI prints details as they come). */
function normalised(text: string, names: Map<string, string>): string[] {
  let out = text;
  for (const [id, name] of names) out = out.split(id).join(name);
  return out
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)/g, '<time>')
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line !== '')
    .sort();
}

describe(
  'ziti fabric validate / inspect / stream (v1.1.8 CLI) against upstream v1.1.8 and ours, each with a real router',
  { skip: binary === undefined ? 'no ziti v1.1.8 binary (set ZITI_UPSTREAM_BIN)' : false },
  () => {
    const sides: Side[] = [];

    before(async () => {
      for (const kind of ['upstream', 'ours'] as const) sides.push(await prepare(kind));
    });

    after(async () => {
      for (const side of sides) {
        await side.router.program.stop();
        await side.controller.stop();
        rmSync(side.work, { recursive: true, force: true });
      }
    });

    const both = async (args: string[]) => {
      const [upstream, ours] = await Promise.all(sides.map((side) => side.ziti.run(args)));
      return [upstream!, ours!] as const;
    };

    for (const args of [
      ['fabric', 'validate', 'terminators', '--include-valid'],
      ['fabric', 'validate', 'router-links', '--include-valid-routers', '--include-valid-links'],
      ['fabric', 'validate', 'router-sdk-terminators', '--include-valid-routers', '--include-valid-terminators'],
      ['fabric', 'validate', 'router-links', 'name = "no-such-router"'],
    ]) {
      it(`ziti ${args.join(' ')}: the same lines`, async (t) => {
        const [upstream, ours] = await both(args);
        t.diagnostic(`ours printed:\n${ours.stdout}`);
        assert.equal(ours.code, upstream.code, `${ours.stdout}${ours.stderr}`);
        assert.deepEqual(
          normalised(ours.stdout, sides[1]!.names),
          normalised(upstream.stdout, sides[0]!.names),
          `ours:\n${ours.stdout}${ours.stderr}\nupstream:\n${upstream.stdout}${upstream.stderr}`,
        );
      });
    }

    it('ziti fabric inspect: the same sources answer the same values', async (t) => {
      for (const value of ['links', 'sdk-terminators', 'connected-routers', 'router-controllers']) {
        const [upstream, ours] = await both(['fabric', 'inspect', value, '--format', 'json']);
        assert.equal(ours.code, 0, `${ours.stdout}${ours.stderr}`);
        assert.deepEqual(
          headings(ours.stdout, sides[1]!.names),
          headings(upstream.stdout, sides[0]!.names),
          `inspect ${value}\nours:\n${ours.stdout}\nupstream:\n${upstream.stdout}`,
        );
      }
      // The values a controller answers for itself: ours answers none that upstream does not.
      const answered: Record<string, string[]> = {};
      for (const side of sides) {
        const run = await side.ziti.run(['fabric', 'inspect', '--format', 'json', '.*', ...CONTROLLER_VALUES]);
        answered[side.kind] = CONTROLLER_VALUES.filter((value) =>
          headings(run.stdout, side.names).includes(`ctrl.${value}`),
        );
      }
      t.diagnostic(`controller values answered: ${JSON.stringify(answered)}`);
      for (const value of ['router-messaging', 'router-data-model', 'metrics']) {
        const run = await sides[0]!.ziti.run(['fabric', 'inspect', '--format', 'json', '.*', value]);
        t.diagnostic(`upstream ${value}: ${stripVTControlCharacters(run.stdout).slice(0, 1500)}`);
      }
      for (const value of answered.ours ?? []) assert.ok(answered.upstream?.includes(value), `ours only: ${value}`);
      const stackdump = await sides[1]!.ziti.run(['fabric', 'inspect', 'stackdump']);
      t.diagnostic(`ours printed:\n${stackdump.stdout.slice(0, 600)}`);
      assert.match(stackdump.stdout, /Results: \(2\)/);
    });

    it('ziti fabric stream events: the websocket handshake and the request are answered (no "bad handshake")', async (t) => {
      for (const side of sides) {
        const run = await streamFor(side, ['fabric', 'stream', 'events', '--circuits', '--verbose'], 3000);
        t.diagnostic(`${side.kind} printed:\n${run}`);
        assert.doesNotMatch(run, /bad handshake|unexpected response type/, `${side.kind}: ${run}`);
        assert.match(
          run,
          /Request: \{"format":"json","subscriptions":\[\{"type":"fabric.circuits","options":null\}\]\}/,
        );
        // Ours answers from the process's event dispatcher (FabricOptions.eventSource), as upstream does.
        assert.match(run, /event streaming started: success/, `${side.kind}: ${run}`);
      }
    });

    // Last: it adds identities, policies and a hosted service the validations above do not expect.
    it("ziti fabric stream events shows a dial's circuit created and deleted, an identity created, a terminator replaced", async (t) => {
      await Promise.all(
        sides.map(async (side) => {
          const seen = await streamWhileDialling(side);
          t.diagnostic(`${side.kind} streamed: ${seen.join(', ')}`);
        }),
      );
    });
  },
);

/**
 * Streams circuits, entity changes and terminators while an identity is made, a Go SDK echo-server binds, zcat dials
 * it, and the echo-server is restarted (its terminator deleted, another created). Answers the kinds seen.
 */
async function streamWhileDialling(side: Side): Promise<string[]> {
  const stream = new EventStream(binary!, side.home, ['--circuits', '--entity-change', '--terminators']);
  const programs: { stop(): Promise<void> }[] = [];
  try {
    await stream.started();
    await openPolicies(side.controller);
    const host = await enrolledIdentity(binary!, side.controller, 'stream-host', side.work);
    const client = await enrolledIdentity(binary!, side.controller, 'stream-client', side.work);
    await stream.waitFor(
      'the identity created',
      (event) =>
        event.namespace === 'entityChange' &&
        event.eventType === 'created' &&
        event.entityType === 'identities' &&
        (event.finalState as { id?: string } | null)?.id === host.id,
    );
    const serviceId = await echoService(side.controller, 'stream-echo', host.id, client.id);
    const first = await startEchoServer(binary!, side.controller, host.file, 'stream-echo', serviceId, side.work);
    programs.push(first.program);
    await stream.waitFor('the terminator created', (event) => isTerminator(event, 'created', first.terminatorId));
    const reply = await zcat(binary!, client.file, 'stream-echo', Buffer.from('streamed\n'), side.work);
    assert.equal(reply.output.toString(), 'streamed\n', `${side.kind}: zcat: ${reply.log.slice(-1000)}`);
    const created = await stream.waitFor(
      'the circuit created',
      (event) =>
        event.namespace === 'fabric.circuits' && event.event_type === 'created' && event.service_id === serviceId,
    );
    await stream.waitFor(
      'the circuit deleted',
      (event) =>
        event.namespace === 'fabric.circuits' &&
        event.event_type === 'deleted' &&
        event.circuit_id === created.circuit_id,
    );
    await first.program.stop();
    const second = await startEchoServer(binary!, side.controller, host.file, 'stream-echo', serviceId, side.work, [
      first.terminatorId,
    ]);
    programs.push(second.program);
    await stream.waitFor('the old terminator deleted', (event) => isTerminator(event, 'deleted', first.terminatorId));
    await stream.waitFor('the new terminator created', (event) => isTerminator(event, 'created', second.terminatorId));
    return [
      ...new Set(
        stream
          .events()
          .map((event) =>
            [event.namespace, event.event_type ?? event.eventType, event.entityType].filter(Boolean).join(' '),
          ),
      ),
    ];
  } finally {
    for (const program of programs.reverse()) await program.stop();
    await stream.stop();
  }
}

function isTerminator(event: Record<string, unknown>, type: string, terminatorId: string): boolean {
  return event.namespace === 'fabric.terminators' && event.event_type === type && event.terminator_id === terminatorId;
}

/** The CLI's `Results: (n)` and `<appId>.<value>` lines; a controller (its own id) reads `ctrl`, colours dropped. */
function headings(text: string, names: Map<string, string>): string[] {
  const plain = stripVTControlCharacters(text);
  return normalised(plain, names)
    .filter((line) => /^Results: |^[\w.-]+\.[a-z-]+$/.test(line))
    .map((line) => line.replace(/^(?!Results)(?!mgmt-er\.)[\w.-]+?\.([a-z-]+)$/, 'ctrl.$1'));
}

/** Runs a streaming command for `ms` and answers what it printed. */
function streamFor(side: Side, args: string[], ms: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary!, args, {
      cwd: side.home,
      env: zitiEnv({ HOME: side.home, ZITI_CONFIG_DIR: side.home }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    const timer = setTimeout(() => child.kill('SIGTERM'), ms);
    child.once('close', () => {
      clearTimeout(timer);
      resolve(output);
    });
  });
}

async function prepare(kind: ControllerKind): Promise<Side> {
  const work = tempDir(`ziti-mgmt-${kind}-`);
  const { controller, ctrlEndpoint } = await startController(kind, work);
  const router = await startRouter(binary!, controller, ctrlEndpoint, work, { name: 'mgmt-er' });
  const service = await create(controller, '/services', { name: 'mgmt-svc', encryptionRequired: true });
  const terminator = await create(controller, '/terminators', {
    service,
    router: router.routerId,
    binding: 'edge',
    address: 'hosted-by-nobody',
  });
  const home = join(work, 'cli');
  const ziti = zitiCli(home);
  writeFileSync(join(home, 'ca.pem'), readFileSync(controller.caFile));
  await ziti.ok([
    'edge',
    'login',
    controller.baseUrl,
    '-u',
    ADMIN_USERNAME,
    '-p',
    ADMIN_PASSWORD,
    '--ca',
    join(home, 'ca.pem'),
  ]);
  const names = new Map([
    [router.routerId, 'mgmt-er'],
    [service, 'mgmt-svc'],
    [terminator, 'mgmt-terminator'],
  ]);
  return { kind, controller, router, ziti, work, home, names };
}
