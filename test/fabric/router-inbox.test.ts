// The router inbox's bounds (docs/reference/router-control-plane-links.md §5.8): a message for a router another
// instance holds reaches it and brings its reply back; a request nobody answers gives up at its timeout and leaves no
// row; past the row cap a message is refused at once; rows addressed to an instance that stopped beating are swept;
// a router held nowhere is refused; a message for an instance itself reaches its handler. Two inboxes on one store
// stand for two instances.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { formatTimestamp } from '../../src/lib/clock.js';
import type { Message } from '../../src/fabric/channel/message.js';
import { RouterNotHeldError } from '../../src/fabric/ctrl/messenger.js';
import { RouterInbox } from '../../src/fabric/ctrl/router-inbox.js';
import { beatControllerInstance } from '../../src/store/queries/cluster.js';
import { markRoutersConnected } from '../../src/store/queries/router-presence.js';
import { pendingInboxCount } from '../../src/store/queries/router-inbox.js';
import { OFFLINE_AFTER_MS } from '../../src/system/instance-heartbeat.js';
import { buildTestApp, type TestApp } from '../support/test-app.js';
import { openEdgeRouter } from '../support/sessions.js';
import { liveInstance } from '../support/live-instance.js';

type Outgoing = Omit<Message, 'sequence'>;

describe('router inbox', () => {
  let t: TestApp;
  let other: Awaited<ReturnType<typeof liveInstance>>;
  let OTHER: string;
  let routerId: string;
  let unheld: string;
  const requests: Outgoing[] = [];
  const channel = {
    send: (message: Outgoing) => void requests.push(message),
    request: (message: Outgoing) => {
      requests.push(message);
      return Promise.resolve({
        contentType: 1022,
        sequence: 9,
        headers: new Map([[7, Uint8Array.of(1, 2)]]),
        body: new TextEncoder().encode('answered'),
      });
    },
  };
  const inbox = (instanceId: string, held: Map<string, typeof channel>, extra: { maxPending?: number } = {}) =>
    new RouterInbox({
      store: t.deps.store,
      clock: t.clock,
      instanceId,
      routers: { get: (id) => (held.has(id) ? { channel: held.get(id)! } : undefined) },
      holdsAny: () => held.size > 0,
      instanceOfflineAfterMs: OFFLINE_AFTER_MS,
      logger: pino({ level: 'silent' }),
      ...extra,
    });
  const pending = () => t.deps.store.read((db) => pendingInboxCount(db, OTHER));
  const message: Outgoing = {
    contentType: 1021,
    headers: new Map([[3, Uint8Array.of(5)]]),
    body: Uint8Array.of(1, 2, 3),
  };

  before(async () => {
    t = await buildTestApp();
    const admin = await t.loginAsAdmin();
    [routerId, unheld] = [await openEdgeRouter(t, admin), await openEdgeRouter(t, admin)];
    other = await liveInstance(t, 'other');
    OTHER = other.id;
    const at = formatTimestamp(t.clock());
    await t.deps.store.transaction(async (tx) => {
      await beatControllerInstance(tx, {
        id: OTHER,
        name: OTHER,
        api_base: 'https://other',
        started_at: at,
        last_seen_at: at,
      });
      await markRoutersConnected(tx, [
        { routerId, instanceId: OTHER, connectedAt: at, versionInfo: '{}', linkListeners: '[]' },
      ]);
    });
  });
  after(async () => {
    await other?.release();
    await t.close();
  });

  it('brings a request to the router another instance holds, and its reply back', async () => {
    const here = inbox(t.deps.instanceId, new Map());
    const there = inbox(OTHER, new Map([[routerId, channel]]), {});
    there.start();
    try {
      const reply = await here.messenger.request(routerId, message, 2000);
      assert.deepEqual(
        [reply.contentType, [...reply.headers], new TextDecoder().decode(reply.body)],
        [1022, [[7, Uint8Array.of(1, 2)]], 'answered'],
      );
      assert.deepEqual(requests.at(-1), message);
      await here.messenger.send(routerId, { ...message, contentType: 1023 });
      for (let i = 0; i < 200 && requests.at(-1)?.contentType !== 1023; i++)
        await new Promise((resolve) => setTimeout(resolve, 5));
      assert.equal(requests.at(-1)?.contentType, 1023);
    } finally {
      await there.stop();
    }
  });

  it('brings a message for another instance itself to its handler, only while that instance may be addressed', async () => {
    const here = inbox(t.deps.instanceId, new Map());
    const there = inbox(OTHER, new Map());
    let addressable = false;
    there.serveInstance(
      1024,
      (asked) => Promise.resolve({ contentType: 1024, headers: new Map(), body: Uint8Array.of(asked.body.length) }),
      () => addressable,
    );
    there.start();
    try {
      const unrouting = { ...message, contentType: 1024 };
      await assert.rejects(
        here.instances.request(OTHER, unrouting, 100),
        /no reply from controller instance other[0-9a-f]{8} within 100 ms/,
        'it holds no router and owns nothing: it does not look',
      );
      addressable = true;
      const reply = await here.instances.request(OTHER, unrouting, 2000);
      assert.deepEqual([reply.contentType, [...reply.body]], [1024, [3]]);
      await assert.rejects(
        here.instances.request(OTHER, message, 2000),
        /controller instance other[0-9a-f]{8}: this instance answers no message of content type 1021/,
      );
    } finally {
      await there.stop();
    }
  });

  it('gives up at the timeout when nobody delivers, leaving no row behind', async () => {
    const here = inbox(t.deps.instanceId, new Map());
    await assert.rejects(here.messenger.request(routerId, message, 50), /no reply from router .* within 50 ms/);
    for (let i = 0; i < 100 && (await pending()) > 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(await pending(), 0);
  });

  it('refuses a message at once past the row cap, and sweeps the rows of an instance that stopped beating', async () => {
    const here = inbox(t.deps.instanceId, new Map(), { maxPending: 2 });
    await here.messenger.send(routerId, message);
    await here.messenger.send(routerId, message);
    await assert.rejects(
      here.messenger.send(routerId, message),
      /inbox of controller instance other[0-9a-f]{8} is full \(2 messages undelivered\)/,
    );
    assert.equal(await pending(), 2);
    await here.sweep();
    assert.equal(await pending(), 2, 'its instance still beats');
    t.clock.advance(OFFLINE_AFTER_MS + 1000);
    await t.deps.heartbeat.beat();
    await here.sweep();
    assert.equal(await pending(), 0);
    await assert.rejects(here.messenger.request(routerId, message, 50), RouterNotHeldError, 'its holder is dead');
  });

  it('does not look at its rows while no other instance lives (only another instance writes them)', async () => {
    const reads = (clock: () => Date) => {
      let count = 0;
      const store = {
        ...t.deps.store,
        read: ((work) => (count++, t.deps.store.read(work))) as typeof t.deps.store.read,
      };
      const lonely = new RouterInbox({
        store,
        clock,
        instanceId: t.deps.instanceId,
        routers: { get: () => ({ channel }) },
        holdsAny: () => true,
        instanceOfflineAfterMs: OFFLINE_AFTER_MS,
        logger: pino({ level: 'silent' }),
      });
      return { lonely, count: () => count };
    };
    // A day on, no instance has beaten within the window: one read of who lives, then none for the next looks.
    const alone = reads(() => new Date(t.clock().getTime() + 86_400_000));
    for (let look = 0; look < 5; look++) await alone.lonely.deliver();
    assert.equal(alone.count(), 1);
    // Another instance beating now: every look reads the inbox too.
    const at = formatTimestamp(t.clock());
    await t.deps.store.transaction((tx) =>
      beatControllerInstance(tx, {
        id: OTHER,
        name: OTHER,
        api_base: 'https://other',
        started_at: at,
        last_seen_at: at,
      }),
    );
    const beside = reads(t.clock);
    for (let look = 0; look < 5; look++) await beside.lonely.deliver();
    assert.equal(beside.count(), 6);
  });

  it('refuses a router no instance holds', async () => {
    await assert.rejects(
      inbox(t.deps.instanceId, new Map()).messenger.request(unheld, message, 50),
      RouterNotHeldError,
    );
  });
});
