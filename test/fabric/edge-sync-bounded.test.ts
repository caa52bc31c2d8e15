// Full API-session states on a bounded pool, as upstream's sync workers send them (sync_instant.go): many routers
// connecting together get every state complete with at most `syncWorkers` in flight, a router that does not read
// holds its sender at a chunk rather than making this process buffer its state, and a router that leaves frees its
// place at once. Runs on SQLite and (ZITI_TEST_DATABASE_URL) PostgreSQL.
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { insertApiSession } from '../../src/auth/api-sessions.js';
import { EdgeSync } from '../../src/fabric/edge-sync/edge-sync.js';
import { createUser } from '../support/factories.js';
import { FakeConnections, type DecodedMessage, type FakeRouterChannel } from '../support/fake-router-channel.js';
import { serveRouterMessages } from '../support/router-messages.js';
import { waitUntil } from '../support/wait.js';
import { buildTestApp, testDatabaseUrl, type TestApp } from '../support/test-app.js';
import { postgresSchema, sqliteFile, type SharedDatabase } from '../support/two-instances.js';

const WORKERS = 3;
const until = (check: () => boolean) => waitUntil(() => Promise.resolve(check()));
type Added = Extract<DecodedMessage, { type: 'added' }>;
type State = { id: string; isLast: boolean; sequence: number };

/** What one fake router received, kept as it arrives. */
class Received {
  readonly messages: DecodedMessage[] = [];
  constructor(readonly channel: FakeRouterChannel) {}
  get fullState(): Added[] {
    this.messages.push(...this.channel.take());
    return this.messages.filter((message): message is Added => message.type === 'added' && message.isFullState);
  }
  /** The controller sent its ServerHello, which the fake router answers at once. */
  get isGreeted(): boolean {
    this.messages.push(...this.channel.take());
    return this.messages.some((message) => message.type === 'serverHello');
  }
  get isComplete(): boolean {
    return this.fullState.some((chunk) => (chunk.state as State).isLast);
  }
  /** Started (a chunk arrived) and not finished. */
  get isInFlight(): boolean {
    return this.fullState.length > 0 && !this.isComplete;
  }
}

describe('edge sync on a bounded pool', () => {
  let database: SharedDatabase;
  let t: TestApp;
  const connections = new FakeConnections();
  let sync: EdgeSync;
  let tokens: Set<string>;
  const routers: Received[] = [];
  let peak = 0;

  /** Connects a router that reads nothing until resumed; every send notes how many routers are mid-state. */
  function connect(routerId: string): { received: Received; leave: () => void } {
    const { connection, channel } = connections.connect(routerId, true, (channel) => {
      channel.pauseReading();
      const send = channel.send.bind(channel);
      channel.send = (message) => {
        send(message);
        peak = Math.max(peak, routers.filter((router) => router.isInFlight).length);
      };
    });
    const received = new Received(channel);
    routers.push(received);
    return { received, leave: () => connections.disconnect({ ...connection, channel }) };
  }

  const settle = async () => {
    for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve));
  };

  before(async () => {
    database = testDatabaseUrl ? await postgresSchema() : sqliteFile();
    t = await buildTestApp(database.options);
    const admin = await t.loginAsAdmin();
    sync = new EdgeSync({
      store: t.deps.store,
      clock: t.clock,
      version: 'v1.1.8',
      connections,
      recordActivity: () => undefined,
      logger: pino({ level: 'silent' }),
      feedPollMs: 60_000,
      syncWorkers: WORKERS,
    });
    connections.serve = (routerId, channel) => serveRouterMessages(channel, routerId, { edgeSync: sync });
    await sync.start();
    // 250 sessions besides the admin's: three chunks per state.
    const user = await createUser(t, admin);
    const made = await t.deps.store.transaction(async (tx) => {
      const rows: string[] = [];
      for (let index = 0; index < 250; index++) {
        const row = await insertApiSession(tx, t.clock, t.deps.ids, {
          identityId: user.id,
          authenticatorId: 'a',
          ipAddress: '127.0.0.1',
          configTypes: [],
          isMfaRequired: false,
        });
        rows.push(row.token);
      }
      return rows;
    });
    tokens = new Set([...made, admin]);
    await sync.poll();
  });
  after(async () => {
    await sync?.stop();
    await t?.close();
    await database?.drop();
  });

  it('sends every router its whole state, at most the pool’s size at once, each waiting for its router to read', async () => {
    const many = Array.from({ length: 12 }, (_, index) => connect(`router-many-${index}`).received);
    await until(() => many.filter((router) => router.isInFlight).length === WORKERS);
    await settle();
    // Those sending stop at their first chunk while their router reads nothing; the others wait their turn.
    assert.equal(sync.fullSyncsInFlight, WORKERS);
    assert.deepEqual(
      many.map((router) => router.fullState.length),
      many.map((_, index) => (index < WORKERS ? 1 : 0)),
    );
    for (const router of many) router.channel.resumeReading();
    await until(() => many.every((router) => router.isComplete));
    await sync.idle();
    assert.equal(peak, WORKERS);
    assert.equal(sync.fullSyncsInFlight, 0);
    for (const router of many) {
      const chunks = router.fullState;
      const { id } = chunks[0]!.state as State;
      assert.deepEqual(
        chunks.map((chunk) => chunk.state),
        [0, 1, 2].map((sequence) => ({ id, isLast: sequence === 2, sequence })),
      );
      assert.deepEqual(new Set(chunks.flatMap((chunk) => chunk.tokens)), tokens);
    }
  });

  it('frees the slot of a router that leaves mid-state or while waiting, and keeps a login after the state', async () => {
    routers.length = 0;
    peak = 0;
    const sending = Array.from({ length: WORKERS }, (_, index) => connect(`router-busy-${index}`));
    await until(() => sending.every(({ received }) => received.isInFlight));
    const waiting = connect('router-waiting');
    const next = connect('router-next');
    // Both have answered the hello (the fake router answers at once, however paused): from then on each receives every
    // change after its state. Before it, a login would be part of the state itself (on PostgreSQL the connection's own
    // store work can take longer than a few turns).
    await until(() => waiting.received.isGreeted && next.received.isGreeted);
    await settle();
    assert.equal(waiting.received.fullState.length + next.received.fullState.length, 0);
    // A login while the next router waits for its state: told after it.
    const login = await t.loginAsAdmin();
    await sync.poll();
    next.received.channel.resumeReading();
    waiting.leave();
    sending[0]!.leave();
    // The login follows the state once its end is recorded (a store write): waited for, not assumed sent with it.
    const toldOfLogin = () => next.received.messages.some((m) => m.type === 'added' && !m.isFullState);
    await until(() => next.received.isComplete && toldOfLogin());
    const after = next.received.messages.slice(next.received.messages.findIndex((m) => m.type === 'added'));
    assert.deepEqual(
      after.map((message) => (message.type === 'added' ? message.isFullState : message.type)),
      [true, true, true, false],
    );
    assert.deepEqual((after[3] as Added).tokens, [login]);
    assert.equal(waiting.received.fullState.length, 0, 'a router that left while waiting is sent nothing');
    for (const { received } of sending.slice(1)) received.channel.resumeReading();
    await until(() => sending.slice(1).every(({ received }) => received.isComplete));
    await sync.idle();
    assert.equal(sync.fullSyncsInFlight, 0);
  });
});
