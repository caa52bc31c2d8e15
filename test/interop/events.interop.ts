// `npm run test:interop:events` (issue 31 item 7): the same actions on our controller and on upstream v1.1.8, each
// started with the same `events:` section (a file handler subscribed to every namespace): a real router, `ziti demo`
// echo-server and zcat dials, entity writes. Each events file must hold circuits, router, terminator, entity-change,
// session and metrics events, and every kind of event both wrote must have the same fields. Upstream's first event of
// each kind is written to test/fixtures/events/upstream-v1.1.8.jsonl, the fixtures npm test checks our shapes against
// (test/events/event-shapes.test.ts). Skips without the `ziti` binary.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import {
  create,
  echoService,
  enrolledIdentity,
  findZiti,
  openPolicies,
  startController,
  startEchoServer,
  startRouter,
  tempDir,
  until,
  zcat,
  type ControllerKind,
} from './network.js';
import { eventKind, shapeOf } from '../events/event-shape.js';

/** Differences we accept, each with its reason (docs/operating.md, Events). */
const EXPLAINED: { pattern: RegExp; reason: string }[] = [];

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'events', 'upstream-v1.1.8.jsonl');
const binary = findZiti();

const eventsSection = (path: string) => `
events:
  jsonLogger:
    subscriptions:
      - type: fabric.circuits
      - type: fabric.links
      - type: fabric.routers
      - type: fabric.terminators
      - type: fabric.usage
      - type: fabric.usage
        version: 3
      - type: metrics
        sourceFilter: .*
        metricFilter: .*
      - type: services
      - type: entityChange
      - type: edge.apiSessions
      - type: edge.sessions
      - type: edge.entityCounts
        interval: 5s
    handler:
      type: file
      format: json
      path: ${path}
      maxsizemb: 10
`;

/** Runs the actions on one controller; answers the events its file holds. */
async function run(ziti: string, kind: ControllerKind): Promise<Record<string, unknown>[]> {
  const work = tempDir(`ziti-events-${kind}-`);
  const file = join(work, 'events.json');
  const { controller, ctrlEndpoint } = await startController(kind, work, eventsSection(file));
  const programs: { stop(): Promise<void> }[] = [];
  try {
    const router = await startRouter(ziti, controller, ctrlEndpoint, work, { metricsReportInterval: '5s' });
    programs.push(router.program);
    await openPolicies(controller);
    const host = await enrolledIdentity(ziti, controller, 'events-host', work);
    const client = await enrolledIdentity(ziti, controller, 'events-client', work);
    const serviceId = await echoService(controller, 'events-echo', host.id, client.id, true);
    const echo = await startEchoServer(ziti, controller, host.file, 'events-echo', serviceId, work);
    programs.push(echo.program);
    for (const line of ['one\n', 'two\n']) {
      const reply = await zcat(ziti, client.file, 'events-echo', Buffer.from(line), work);
      assert.equal(reply.output.toString(), line, `${kind}: zcat: ${reply.log.slice(-1000)}`);
    }
    // A dial of a service with no terminator fails: a circuit failed event.
    const lonely = await create(controller, '/services', { name: 'events-lonely', encryptionRequired: true });
    await create(controller, '/service-policies', {
      name: 'lonely-dial',
      type: 'Dial',
      semantic: 'AnyOf',
      identityRoles: [`@${client.id}`],
      serviceRoles: [`@${lonely}`],
    });
    await zcat(ziti, client.file, 'events-lonely', Buffer.from('x\n'), work, 20_000).catch(() => undefined);
    const configType = await create(controller, '/config-types', { name: 'events-config-type', schema: {} });
    // upstream refuses a config type PATCH without its schema (config_type_router.go Patch): 400.
    const patched = await controller.api('PATCH', `/config-types/${configType}`, {
      tags: { changed: 'yes' },
      schema: {},
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.data));
    await controller.api('DELETE', `/config-types/${configType}`);
    const read = () =>
      existsSync(file)
        ? readFileSync(file, 'utf8')
            .split('\n')
            .filter((line) => line.trim() !== '')
            .map((line) => JSON.parse(line) as Record<string, unknown>)
        : [];
    // The router reports metrics every 5 s; entity counts come every 5 s.
    await until(
      `${kind}: metrics and entity counts in the events file`,
      () =>
        Promise.resolve(
          read().some((event) => event.namespace === 'metrics') &&
            read().some((event) => event.namespace === 'edge.entityCounts'),
        ),
      60_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    return read();
  } finally {
    for (const program of programs.reverse()) await program.stop();
    await controller.stop();
    if (!process.env.ZITI_INTEROP_KEEP) rmSync(work, { recursive: true, force: true });
  }
}

describe(
  'events: upstream v1.1.8 events sections on both controllers',
  { skip: binary ? false : 'no ziti binary' },
  () => {
    const ziti = binary!;
    let ours: Record<string, unknown>[] = [];
    let upstream: Record<string, unknown>[] = [];

    it('each controller writes circuits, routers, terminators, entity changes, sessions and metrics events', async () => {
      [ours, upstream] = await Promise.all([run(ziti, 'ours'), run(ziti, 'upstream')]);
      for (const [kind, events] of [
        ['ours', ours],
        ['upstream', upstream],
      ] as const) {
        const kinds = new Set(events.map(eventKind));
        process.stdout.write(`${kind}: ${events.length} events, kinds: ${[...kinds].sort().join(', ')}\n`);
        for (const expected of [
          'fabric.circuits created',
          'fabric.circuits deleted',
          'fabric.routers router-online',
          'fabric.terminators created',
          'entityChange created',
          'entityChange updated',
          'entityChange deleted',
          'entityChange committed',
          'edge.apiSessions created',
          'edge.sessions created',
          'edge.entityCounts',
        ])
          assert.ok(kinds.has(expected), `${kind} wrote no ${expected}`);
        assert.ok(
          [...kinds].some((each) => each.startsWith('metrics ')),
          `${kind} wrote no metrics`,
        );
      }
      // Upstream's first event of each kind: the fixtures npm test holds our shapes to.
      const firsts = new Map<string, Record<string, unknown>>();
      for (const event of upstream) if (!firsts.has(eventKind(event))) firsts.set(eventKind(event), event);
      writeFileSync(FIXTURES, [...firsts.values()].map((event) => `${JSON.stringify(event)}\n`).join(''));
    });

    it('both record the same entity changes: as many of each entity type, change and author type', () => {
      const counts = (events: Record<string, unknown>[]) => {
        const byKey: Record<string, number> = {};
        for (const event of events) {
          if (event.namespace !== 'entityChange' || event.eventType === 'committed') continue;
          const author = (event.metadata as { author?: { type?: string } } | undefined)?.author?.type;
          const key = `${String(event.entityType)} ${String(event.eventType)} by ${String(author)}`;
          byKey[key] = (byKey[key] ?? 0) + 1;
        }
        return Object.fromEntries(Object.entries(byKey).sort(([a], [b]) => (a < b ? -1 : 1)));
      };
      process.stdout.write(`entity changes (upstream): ${JSON.stringify(counts(upstream))}\n`);
      assert.deepEqual(counts(ours), counts(upstream));
    });

    it('every kind of event both wrote has the same fields, with values of the same types', () => {
      const shapes = (events: Record<string, unknown>[]) => {
        const byKind = new Map<string, Set<string>>();
        for (const event of events) {
          const kind = eventKind(event);
          const shape = shapeOf(event);
          byKind.set(kind, new Set([...(byKind.get(kind) ?? []), shape]));
        }
        return byKind;
      };
      const [ourShapes, theirShapes] = [shapes(ours), shapes(upstream)];
      const differences: string[] = [];
      for (const [kind, theirs] of theirShapes) {
        const mine = ourShapes.get(kind);
        if (!mine) {
          differences.push(`${kind}: upstream only`);
          continue;
        }
        for (const shape of mine)
          if (!theirs.has(shape)) differences.push(`${kind}: ours ${shape}\n  upstream ${[...theirs].join(' | ')}`);
      }
      for (const kind of ourShapes.keys()) if (!theirShapes.has(kind)) differences.push(`${kind}: ours only`);
      process.stdout.write(`shape differences:\n${differences.join('\n')}\n`);
      const unexplained = differences.filter(
        (line) =>
          !line.endsWith('upstream only') &&
          !line.endsWith('ours only') &&
          !EXPLAINED.some((entry) => entry.pattern.test(line)),
      );
      assert.deepEqual(unexplained, []);
    });
  },
);
