// The store's records of circuits (src/fabric/circuits/circuit-records.ts, migration 022) on one store (SQLite, or
// PostgreSQL under npm run test:postgres): written behind, many circuits in one transaction, at once only for a circuit
// spanning processes; shown exactly as the owner's own summary; moved and ended; gone when their process stops, not
// shown once it stops beating, and swept; a removal asked of the owning instance. Several CircuitRecords on one store
// stand for several instances.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { formatTimestamp } from '../../src/lib/clock.js';
import { CircuitRecords } from '../../src/fabric/circuits/circuit-records.js';
import { circuitSummary, type Circuit } from '../../src/fabric/circuits/circuit-registry.js';
import { RouterInbox } from '../../src/fabric/ctrl/router-inbox.js';
import { sharedCircuitsView } from '../../src/fabric/circuits/circuit-view.js';
import type { Message } from '../../src/fabric/channel/message.js';
import { UnrouteSchema } from '../../src/fabric/messages/gen/ctrl_pb.js';
import { ApiError } from '../../src/errors/api-error.js';
import { fromBinary } from '@bufbuild/protobuf';
import { beatControllerInstance } from '../../src/store/queries/cluster.js';
import { OFFLINE_AFTER_MS } from '../../src/system/instance-heartbeat.js';
import type { Store } from '../../src/store/store.js';
import { buildTestApp, type TestApp } from '../support/test-app.js';

const OTHER = 'records-other-instance';

describe('circuit records', () => {
  let t: TestApp;
  let writes = 0;
  const errors: unknown[] = [];

  /** The store, counting write transactions. */
  const counted = (): Store => ({
    ...t.deps.store,
    transaction: (work, options) => (writes++, t.deps.store.transaction(work, options)),
  });
  const records = (instanceId: string, extra: { delayMs?: number; batchSize?: number; held?: string[] } = {}) =>
    new CircuitRecords({
      store: counted(),
      clock: t.clock,
      instanceId,
      instanceOfflineAfterMs: OFFLINE_AFTER_MS,
      holds: (routerId) => (extra.held ?? ['r-here']).includes(routerId),
      onError: (error) => errors.push(error),
      delayMs: extra.delayMs ?? 60_000,
      ...(extra.batchSize ? { batchSize: extra.batchSize } : {}),
    });
  let serial = 0;
  const circuit = (routerIds = ['r-here'], overrides: Partial<Circuit> = {}): Circuit => {
    const at = t.clock().getTime();
    return {
      id: `c-${++serial}`,
      serviceId: 'svc',
      serviceName: 'svc-name',
      clientId: `session-${serial}`,
      hostId: 'host',
      sessionId: `session-${serial}`,
      terminatorId: 'term',
      strategy: 'smartrouting',
      routerId: routerIds.at(-1) ?? '',
      path: { routerIds, linkIds: routerIds.slice(1).map((id, index) => `l-${routerIds[index]}-${id}`) },
      terminator: { binding: 'edge', address: 'hosted' },
      ingressId: 'in',
      egressId: 'out',
      tags: { serviceId: 'svc', clientId: 'identity', hostId: 'host' },
      createdAt: at,
      updatedAt: at,
      ...overrides,
    };
  };
  const beat = (id: string, at = t.clock()) =>
    t.deps.store.transaction((tx) =>
      beatControllerInstance(tx, {
        id,
        name: id,
        api_base: 'https://other',
        started_at: formatTimestamp(at),
        last_seen_at: formatTimestamp(at),
      }),
    );
  /** What another live instance reads (it writes nothing, so it flushes nothing of ours). */
  const seenElsewhere = async () => (await records(OTHER).list()).map((summary) => summary.id);

  before(async () => {
    t = await buildTestApp();
    await beat(OTHER);
  });
  after(() => t.close());

  it('writes a circuit behind: nothing before the write, then shown exactly as its owner’s summary', async () => {
    const here = records(t.deps.instanceId);
    const created = circuit(['r-here'], { createdAt: t.clock().getTime() + 1234 });
    writes = 0;
    await here.put(created);
    assert.equal(writes, 0, 'the dial is answered before any write');
    assert.deepEqual(await seenElsewhere(), []);
    await here.flush();
    assert.equal(writes, 1);
    assert.deepEqual(await records(OTHER).list(), [circuitSummary(created)]);
    assert.deepEqual((await records(OTHER).find(created.id))?.instanceId, t.deps.instanceId);
    await here.close();
  });

  it('writes many changes in one transaction, and a batch at once when it is full', async () => {
    const here = records(t.deps.instanceId);
    writes = 0;
    const made = Array.from({ length: 300 }, () => circuit());
    for (const one of made) await here.put(one);
    here.ended(made[0]!.id);
    await here.flush();
    assert.equal(writes, 1);
    assert.equal((await seenElsewhere()).length, 299, 'the one ended before its write was never written');
    await here.close();
    const batched = records(t.deps.instanceId, { batchSize: 100 });
    writes = 0;
    for (let n = 0; n < 100; n++) await batched.put(circuit());
    // Its delay is a minute: only the full batch can have written them.
    for (let i = 0; i < 400 && (await seenElsewhere()).length < 100; i++)
      await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal((await seenElsewhere()).length, 100);
    assert.equal(writes, 1);
    await batched.close();
  });

  it('writes a circuit spanning a router held elsewhere before its dial is answered', async () => {
    const here = records(t.deps.instanceId);
    const spanning = circuit(['r-here', 'r-there']);
    writes = 0;
    await here.put(spanning);
    assert.equal(writes, 1);
    assert.deepEqual(await seenElsewhere(), [spanning.id]);
    assert.deepEqual([...(await records(OTHER).ownedElsewhere([spanning.id, 'c-unknown']))], [spanning.id]);
    assert.deepEqual([...(await here.ownedElsewhere([spanning.id]))], [], 'not elsewhere for its owner');
    await here.close();
  });

  it('records a moved circuit’s new path and time, and removes an ended one', async () => {
    const here = records(t.deps.instanceId, { delayMs: 5 });
    const moving = circuit(['r-here', 'r-mid', 'r-end']);
    await here.put(moving);
    moving.path = { routerIds: ['r-here', 'r-end'], linkIds: ['l-direct'] };
    moving.updatedAt += 5000;
    await here.put(moving);
    const shown = await records(OTHER).find(moving.id);
    assert.deepEqual(shown?.summary.path, { routerIds: ['r-here', 'r-end'], linkIds: ['l-direct'] });
    assert.equal(shown?.summary.updatedAt.getTime(), moving.updatedAt);
    here.ended(moving.id);
    for (let i = 0; i < 200 && (await seenElsewhere()).includes(moving.id); i++)
      await new Promise((resolve) => setTimeout(resolve, 5));
    assert.deepEqual(await seenElsewhere(), [], 'written behind within its delay');
    await here.close();
  });

  it('removes its rows when it stops, and writes nothing after', async () => {
    const here = records(t.deps.instanceId);
    await here.put(circuit());
    await here.flush();
    assert.equal((await seenElsewhere()).length, 1);
    await here.close();
    assert.deepEqual(await seenElsewhere(), []);
    writes = 0;
    await here.put(circuit(['r-there']));
    assert.equal(writes, 0);
  });

  it('asks the owning instance to end a circuit another process owns, and answers 503 when it does not answer', async () => {
    const owner = records(OTHER);
    const theirs = circuit(['r-there']);
    await owner.put(theirs);
    await owner.flush();
    const asked: Array<[string, string, boolean]> = [];
    // Made when asked: a rejection made before would be unhandled while the view reads the store.
    let answer: () => Promise<Message> = () => Promise.reject(new Error('not answered'));
    const view = sharedCircuitsView(records(t.deps.instanceId), () => false, {
      request: (instanceId, message) => {
        const { circuitId, now } = fromBinary(UnrouteSchema, message.body);
        asked.push([instanceId, circuitId, now]);
        return answer();
      },
    });
    answer = () => Promise.resolve({ contentType: 1024, sequence: 0, headers: new Map(), body: Uint8Array.of(1) });
    assert.equal(await view.remove(theirs.id, true), true);
    answer = () => Promise.resolve({ contentType: 1024, sequence: 0, headers: new Map(), body: Uint8Array.of(0) });
    assert.equal(await view.remove(theirs.id, false), false);
    assert.deepEqual(asked, [
      [OTHER, theirs.id, true],
      [OTHER, theirs.id, false],
    ]);
    answer = () => Promise.reject(new Error('no reply within 5000 ms'));
    await assert.rejects(
      view.remove(theirs.id, true),
      (error) => error instanceof ApiError && error.code === 'TIMEOUT' && error.status === 503,
    );
    assert.equal(await view.remove('c-nobody', true), false, 'no such circuit: nobody is asked');
    assert.equal(asked.length, 3);
    await owner.close();
  });

  it('shows no circuit of an instance that stopped beating, and the inbox sweep removes its rows', async () => {
    const dead = records(OTHER, { held: ['r-there'] });
    const theirs = circuit(['r-there']);
    await dead.put(theirs);
    await dead.flush();
    assert.deepEqual(
      (await records(t.deps.instanceId).list()).map((c) => c.id),
      [theirs.id],
    );
    t.clock.advance(OFFLINE_AFTER_MS + 1000);
    await t.deps.heartbeat.beat();
    const here = records(t.deps.instanceId);
    assert.deepEqual(await here.list(), []);
    assert.equal(await here.find(theirs.id), undefined);
    assert.deepEqual([...(await here.ownedElsewhere([theirs.id]))], []);
    const inbox = new RouterInbox({
      store: t.deps.store,
      clock: t.clock,
      instanceId: t.deps.instanceId,
      routers: { get: () => undefined },
      holdsAny: () => false,
      instanceOfflineAfterMs: OFFLINE_AFTER_MS,
      logger: pino({ level: 'silent' }),
    });
    await inbox.sweep();
    await beat(OTHER);
    assert.deepEqual(await here.list(), [], 'swept: not shown even were the instance seen again');
    assert.deepEqual(errors, []);
  });
});
