// `npm run test:interop:links`: two upstream v1.1.8 routers linked under our controller (issue 24 item 5), the same
// topology beside upstream's v1.1.8 controller in the same run. Router A has the edge listener the dialling identity
// may use and a link listener; router B the edge listener the hosting identity may use and no link listener, so B
// dials the link to A. `ziti demo echo-server` hosts an echo service on B, `ziti demo zcat` dials it through A: a line
// and 1 MiB come back across the link; with a circuit held open, `ziti fabric list links|circuits` (the real CLI,
// logged in to each controller) show the same rows once ids are named; B killed (SIGKILL) and restarted: the link comes
// back and a new dial works. Figures go to test/interop/results/links.json. Skips without the `ziti` binary.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { findZiti, Program, readLog, tempDir, terminators, until, zcat, type ControllerKind } from './network.js';
import { connectedLinks, fabricLinks, startLinkedNetwork, type LinkedNetwork, type Topology } from './linked-network.js';
import { namedRows } from './fabric-tables.js';

const RESULTS = join(dirname(fileURLToPath(import.meta.url)), 'results');
const binary = findZiti();

const TOPOLOGY: Topology = {
  routers: [{ name: 'router-a', linkGroups: ['default'] }, { name: 'router-b' }],
  clientRouter: 'router-a',
  services: { echo: 'router-b' },
  links: 1,
};

describe('two v1.1.8 routers linked under our controller, beside upstream', { skip: binary === undefined ? 'no ziti v1.1.8 binary (set ZITI_UPSTREAM_BIN)' : false }, () => {
  const ziti = binary ?? '';
  const sides = new Map<ControllerKind, LinkedNetwork>();
  const works: string[] = [];
  const figures: Record<string, Record<string, unknown>> = { ours: {}, upstream: {} };
  const side = (kind: ControllerKind) => {
    const network = sides.get(kind);
    if (!network) throw new Error(`the ${kind} network did not start`);
    return network;
  };
  const diagnostics = (network: LinkedNetwork) => [
    `--- ${network.kind} controller ---\n${readLog(network.controller.logFile).slice(-3000)}`,
    ...[...network.routers.values()].map((router) => `--- ${router.name} ---\n${router.program.log.slice(-2000)}`),
    ...[...network.hosts.values()].map((host) => `--- echo ---\n${host.echo.program.log.slice(-1500)}`),
  ].join('\n');
  const terminatorsOf = (network: LinkedNetwork) => terminators(network.controller, network.hosts.get('echo')?.serviceId ?? '');
  const dial = async (network: LinkedNetwork, input: Buffer) => {
    const reply = await zcat(ziti, network.client.file, 'echo', input, network.work);
    assert.equal(reply.code, 0, `zcat on ${network.kind} exited ${reply.code}: ${reply.log.slice(-1500)}\n${diagnostics(network)}`);
    return reply;
  };
  /** Runs `check` on both sides at once (ours first in the answer). */
  const both = <T>(check: (network: LinkedNetwork) => Promise<T>) => Promise.all([check(side('ours')), check(side('upstream'))]);

  before(async () => {
    const started = await Promise.allSettled((['ours', 'upstream'] as const).map(async (kind) => {
      const work = tempDir(`ziti-links-${kind}-`);
      works.push(work);
      const began = performance.now();
      sides.set(kind, await startLinkedNetwork(ziti, kind, work, TOPOLOGY));
      figures[kind]!.setupToLinkMs = Math.round(performance.now() - began);
    }));
    const failed = started.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
  });

  after(async () => {
    await Promise.all([...sides.values()].map((network) => network.stop()));
    mkdirSync(RESULTS, { recursive: true });
    writeFileSync(join(RESULTS, 'links.json'), `${JSON.stringify(figures, null, 2)}\n`);
    process.stdout.write(`links interop figures: ${JSON.stringify(figures)}\n`);
    if (process.env.ZITI_INTEROP_KEEP) process.stdout.write(`kept: ${works.join(' ')}\n`);
    else for (const work of works) rmSync(work, { recursive: true, force: true });
  });

  it('B dials the link to A: both controllers list one Connected link B → A with the same fields', async () => {
    const [ours, upstream] = await both(async (network) => {
      const [link] = await fabricLinks(network.controller);
      assert.ok(link, `no link on ${network.kind}`);
      assert.deepEqual([link.sourceRouter.name, link.destRouter.name, link.state, link.down, link.protocol], ['router-b', 'router-a', 'Connected', false, 'tls']);
      return link;
    });
    assert.deepEqual(Object.keys(ours).sort(), Object.keys(upstream).sort());
    assert.equal(ours.staticCost, upstream.staticCost);
    assert.equal(ours.iteration, upstream.iteration);
  });

  it('the terminator is on B and zcat dials through A: a line and 1 MiB come back across the link', async () => {
    await both(async (network) => {
      const [terminator] = await terminatorsOf(network);
      assert.equal(network.names.get(String(terminator?.routerId)), 'router-b');
      const line = await dial(network, Buffer.from('across the link\n'));
      assert.equal(line.output.toString(), 'across the link\n');
      const payload = randomBytes(1024 * 1024);
      const mib = await zcat(ziti, network.client.file, 'echo', payload, network.work);
      Object.assign(figures[network.kind]!, { lineMs: Math.round(line.ms), mibMs: Math.round(mib.ms), mibEchoed: mib.output.length, mibExit: mib.code });
      // Upstream's controller is the reference here, not under test: a short echo on its side is recorded, not failed
      // (seen once: 630,912 of 1,048,576 bytes, zcat exiting 0), so only ours must bring back every byte.
      if (network.kind === 'ours') assert.ok(mib.code === 0 && mib.output.equals(payload), `the echoed MiB differs (${mib.output.length} bytes, exit ${mib.code})\n${diagnostics(network)}`);
    });
  });

  it('with a circuit open, `ziti fabric list links` and `list circuits` show the same rows on both (ids named)', async () => {
    const held = await both(async (network) => {
      const program = new Program(ziti, ['demo', 'zcat', '-i', network.client.file, 'ziti:echo'], network.work);
      program.child.stdin?.write('held open\n');
      await until(() => `the held circuit's echo on ${network.kind}\n${program.log}`, () => Promise.resolve(program.log.includes('held open')), 30_000);
      return program;
    });
    try {
      const [ours, upstream] = await both(async (network) => {
        const circuits = (await network.controller.fabric('GET', '/circuits')).data as unknown as Array<{ path: { nodes: Array<{ name: string }>; links: unknown[] } }>;
        assert.equal(circuits.length, 1, `${network.kind}: ${JSON.stringify(circuits)}`);
        assert.deepEqual(circuits[0]?.path.nodes.map((node) => node.name), ['router-a', 'router-b']);
        assert.equal(circuits[0]?.path.links.length, 1);
        const links = await network.cli.ok(['fabric', 'list', 'links']);
        const listed = await network.cli.ok(['fabric', 'list', 'circuits']);
        return { links: await namedRows(network, links.stdout), circuits: await namedRows(network, listed.stdout), raw: `${links.stdout}${listed.stdout}` };
      });
      figures.ours!.cli = ours.raw;
      figures.upstream!.cli = upstream.raw;
      assert.deepEqual(ours.links, upstream.links, `list links\nours:\n${ours.raw}\nupstream:\n${upstream.raw}`);
      assert.deepEqual(ours.circuits, upstream.circuits, `list circuits\nours:\n${ours.raw}\nupstream:\n${upstream.raw}`);
    } finally {
      await Promise.all(held.map((program) => program.stop()));
    }
  });

  it('B killed (SIGKILL) and restarted: the link comes back and a new dial crosses it', async () => {
    await both(async (network) => {
      const routerB = network.routers.get('router-b');
      assert.ok(routerB);
      const [before] = await fabricLinks(network.controller);
      await routerB.program.kill();
      const killed = performance.now();
      await until(`router-b disconnected on ${network.kind}`, async () => !(await routerB.connected()), 60_000, 100);
      routerB.program = new Program(ziti, ['router', 'run', join(network.work, 'router-b', 'router.yml')], join(network.work, 'router-b'));
      const [link] = await connectedLinks(network, 1);
      assert.ok(link);
      assert.deepEqual([link.sourceRouter.name, link.destRouter.name], ['router-b', 'router-a']);
      figures[network.kind]!.killToLinkMs = Math.round(performance.now() - killed);
      figures[network.kind]!.linkAfterRestart = { sameId: link.id === before?.id, iterationBefore: before?.iteration, iterationAfter: link.iteration };
      const line = Buffer.from('after router-b restart\n');
      await until(() => `a dial after the restart on ${network.kind}\n${diagnostics(network)}`, async () => {
        const reply = await zcat(ziti, network.client.file, 'echo', line, network.work, 20_000);
        return reply.code === 0 && reply.output.equals(line);
      }, 90_000, 500);
      figures[network.kind]!.killToDialMs = Math.round(performance.now() - killed);
    });
  });

  it('after the restart `ziti fabric list links` shows the same on both (the old link gone, the new one Connected)', async () => {
    const [ours, upstream] = await both(async (network) => namedRows(network, (await network.cli.ok(['fabric', 'list', 'links'])).stdout));
    assert.deepEqual(ours, upstream);
    assert.equal(ours.length, 2, JSON.stringify(ours));
  });
});
