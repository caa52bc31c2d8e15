// The edge hello and API-session sync against routers whose channels are fakes (edge-sync.test.ts drives the same
// over TLS with the test router): the full state in chunks with upstream's headers, changes made here or on another
// instance, heartbeats keeping sessions alive, resync. Runs on SQLite and (npm run test:postgres) PostgreSQL.
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { create, toBinary } from '@bufbuild/protobuf';
import { insertApiSession } from '../../src/auth/api-sessions.js';
import { EdgeSync } from '../../src/fabric/edge-sync/edge-sync.js';
import { SyncStateWriter } from '../../src/fabric/edge-sync/sync-state-writer.js';
import { wrapTransactions } from '../../src/store/store.js';
import {
  ApiSessionHeartbeatSchema,
  ContentType,
  RequestClientReSyncSchema,
  ValidateSessionsRequestSchema,
} from '../../src/fabric/messages/gen/edge_ctrl_pb.js';
import { createEdgeRouter, createUser, login, readEntity } from '../support/factories.js';
import { createSession, grantService, openEdgeRouter } from '../support/sessions.js';
import { clientHelloBody, FakeConnections, type DecodedMessage } from '../support/fake-router-channel.js';
import { serveRouterMessages } from '../support/router-messages.js';
import { waitUntil } from '../support/wait.js';
import { buildTestApp, testDatabaseUrl, type TestApp } from '../support/test-app.js';
import { postgresSchema, sqliteFile, type SharedDatabase } from '../support/two-instances.js';
import { CLIENT as client } from '../support/api-paths.js';

/** An edge sync on the test's connections, their router messages served by the table as a controller's are. */
function syncOf(t: TestApp, connections: FakeConnections): EdgeSync {
  const edgeSync = new EdgeSync({
    store: t.deps.store,
    clock: t.clock,
    version: 'v1.1.8',
    connections,
    recordActivity: (ids) => t.deps.apiSessions.recordActivity(ids),
    logger: pino({ level: 'silent' }),
    feedPollMs: 60_000,
  });
  connections.serve = (routerId, channel) => serveRouterMessages(channel, routerId, { edgeSync });
  return edgeSync;
}

const heartbeat = (tokens: string[]) =>
  toBinary(ApiSessionHeartbeatSchema, create(ApiSessionHeartbeatSchema, { tokens }));

async function apiSessionId(t: TestApp, token: string): Promise<string> {
  return (
    (await t.call({ method: 'GET', url: `${client}/current-api-session`, token })).body as { data: { id: string } }
  ).data.id;
}

describe('edge sync', () => {
  let database: SharedDatabase;
  let t: TestApp;
  let other: TestApp;
  let admin: string;
  let otherAdmin: string;
  const connections = new FakeConnections();
  let sync: EdgeSync;

  before(async () => {
    database = testDatabaseUrl ? await postgresSchema() : sqliteFile();
    t = await buildTestApp(database.options);
    other = await buildTestApp(database.options);
    admin = await t.loginAsAdmin();
    otherAdmin = await other.loginAsAdmin();
    sync = syncOf(t, connections);
    await sync.start();
  });
  after(async () => {
    await sync?.stop();
    await t?.close();
    await other?.close();
    await database?.drop();
  });

  it('sends the ServerHello upstream sends, then every fully authenticated API session in chunks of 100', async () => {
    // 205 more sessions, one of them waiting for MFA: three chunks.
    const user = await createUser(t, admin);
    const tokens = await t.deps.store.transaction(async (tx) => {
      const made: string[] = [];
      for (let index = 0; index < 206; index++) {
        const row = await insertApiSession(tx, t.clock, t.deps.ids, {
          identityId: user.id,
          authenticatorId: 'a',
          ipAddress: '127.0.0.1',
          configTypes: [],
          isMfaRequired: index === 0,
        });
        made.push(row.token);
      }
      return made;
    });
    // The feed has passed those sessions' entries before the router connects: they reach it in the full state only
    // (a round of the feed after its state would send them again, as additions it already holds).
    await sync.poll();
    const { connection, channel } = connections.connect('router-full-state');
    await sync.idle();
    const [hello, ...chunks] = channel.take();
    assert.equal(hello?.type, 'serverHello');
    assert.deepEqual([...(hello as { headers: Map<number, Uint8Array> }).headers], [[1024, Uint8Array.of(1)]]);
    const added = chunks as Array<Extract<DecodedMessage, { type: 'added' }>>;
    assert.deepEqual(
      added.map((chunk) => chunk.tokens.length),
      [100, 100, added[2]!.tokens.length],
    );
    assert.ok(added.every((chunk) => chunk.type === 'added' && chunk.isFullState));
    const id = (added[0]!.state as { id: string }).id;
    assert.deepEqual(
      added.map((chunk) => chunk.state),
      [0, 1, 2].map((sequence) => ({ id, isLast: sequence === 2, sequence })),
    );
    const told = new Set(added.flatMap((chunk) => chunk.tokens));
    assert.ok(!told.has(tokens[0]!), 'a session waiting for MFA is not told');
    assert.ok(tokens.slice(1).every((token) => told.has(token)));
    assert.ok(told.has(admin) && told.has(otherAdmin));
    connections.disconnect(connection as typeof connection & { channel: typeof channel });
  });

  it('records SYNC_HELLO_TIMEOUT while a router does not answer the hello, then its hostname, URLs and SYNC_DONE', async () => {
    const routerId = await createEdgeRouter(t, admin);
    const status = async () =>
      (await readEntity(other, otherAdmin, 'edge-routers', routerId)) as {
        syncStatus: string;
        hostname: string;
        supportedProtocols: object;
      };
    assert.equal((await status()).syncStatus, 'SYNC_UNKNOWN');
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    let hellos = 0;
    const { channel } = connections.connect(routerId, true, (fake) => {
      fake.answerHello = async () => {
        if (++hellos === 1) throw new Error('no reply to content type 20000 within 30000 ms');
        await answered;
        return clientHelloBody('router.example', 4433);
      };
    });
    await waitUntil(async () => (await status()).syncStatus === 'SYNC_HELLO_TIMEOUT');
    answer();
    await sync.idle();
    assert.deepEqual(await status(), {
      ...(await status()),
      syncStatus: 'SYNC_DONE',
      hostname: 'router.example',
      supportedProtocols: { tls: 'tls://router.example:4433' },
    });
    assert.equal(channel.take().filter((message) => message.type === 'serverHello').length, 2);
  });

  it('records no hello timeout for a router that leaves before answering the hello', async () => {
    const routerId = await createEdgeRouter(t, admin);
    // As channel.ts orders it: the channel is closed, its pending request fails, and `closed` resolves after.
    const { channel } = connections.connect(routerId, true, (fake) => {
      fake.answerHello = () => {
        fake.isClosed = true;
        throw new Error('channel closed: connection closed by peer');
      };
    });
    await sync.idle();
    channel.close();
    const detail = await readEntity(other, otherAdmin, 'edge-routers', routerId);
    assert.equal(detail.syncStatus, 'SYNC_UNKNOWN');
    assert.equal(channel.take().filter((message) => message.type === 'serverHello').length, 1);
  });

  it('writes the sync states of routers connecting together in few transactions, and leaves none behind', async () => {
    const routers = await Promise.all([1, 2, 3, 4].map(() => createEdgeRouter(t, admin)));
    let transactions = 0;
    const writer = new SyncStateWriter(wrapTransactions(t.deps.store, (run) => (transactions++, run())));
    await Promise.all(routers.map((id, index) => writer.write(id, { syncStatus: 'SYNC_DONE', hostname: `r${index}` })));
    assert.ok(transactions <= 2, `${transactions} transactions`);
    // One asked for as the previous drain ends is written too.
    await writer.write(routers[0]!, { syncStatus: 'SYNC_ERROR' });
    for (const [index, id] of routers.entries()) {
      const detail = await readEntity(t, admin, 'edge-routers', id);
      assert.deepEqual([detail.syncStatus, detail.hostname], [index === 0 ? 'SYNC_ERROR' : 'SYNC_DONE', `r${index}`]);
    }
  });

  it('sends nothing to transit routers', async () => {
    const { channel } = connections.connect('transit', false);
    await sync.idle();
    assert.deepEqual(channel.take(), []);
  });

  it('tells a synchronised router of logins and logouts made on another instance', async () => {
    await sync.poll();
    const { channel } = connections.connect('router-changes');
    await sync.idle();
    channel.take();
    const user = await createUser(other, otherAdmin);
    const token = await login(other, user.username, user.password);
    await sync.poll();
    await sync.idle();
    const [added, ...none] = channel.take();
    assert.deepEqual(none, []);
    assert.equal(added?.type, 'added');
    assert.ok(added?.type === 'added');
    const message = added;
    assert.equal(message.isFullState, false);
    assert.deepEqual(message.tokens, [token]);
    assert.deepEqual({ ...(message.state as object), id: undefined }, { id: undefined, isLast: true, sequence: 0 });

    const id = await apiSessionId(other, token);
    assert.equal((await other.call({ method: 'DELETE', url: `${client}/current-api-session`, token })).status, 200);
    await sync.poll();
    await sync.idle();
    assert.deepEqual(channel.take(), [{ type: 'removed', tokens: [token], ids: [id] }]);
  });

  it('tells a synchronised router of a login made here at once, without waiting for the next poll (a minute here)', async () => {
    await sync.poll();
    const { channel } = connections.connect('router-at-once');
    await sync.idle();
    channel.take();
    const user = await createUser(t, admin);
    const token = await login(t, user.username, user.password);
    const deadline = Date.now() + 5_000;
    let told: DecodedMessage[] = [];
    while (told.length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      await sync.idle();
      told = channel.take().filter((message) => message.type === 'added');
    }
    assert.deepEqual(
      told.map((message) => message.type === 'added' && message.tokens),
      [[token]],
    );
  });

  it('refreshes the activity of the API sessions a router heartbeats, and removes unknown ones from the router', async () => {
    const { channel } = connections.connect('router-heartbeat');
    await sync.idle();
    channel.take();
    const user = await createUser(t, admin);
    const token = await login(t, user.username, user.password);
    const id = await apiSessionId(t, token);
    // The login reaches the router at once (the feed follows this process's commits): taken before the heartbeat.
    await sync.poll();
    await sync.idle();
    channel.take();
    await t.deps.apiSessions.flush(false);
    t.clock.advance(20 * 60_000);
    await channel.receive(ContentType.ApiSessionHeartbeatType, heartbeat([token, 'gone-token']));
    await sync.idle();
    assert.deepEqual(channel.take(), [{ type: 'removed', tokens: ['gone-token'], ids: [] }]);
    await t.deps.apiSessions.flush(false);
    // 40 minutes after its last request, 20 after the heartbeat: alive with a 30-minute timeout.
    t.clock.advance(20 * 60_000);
    await t.deps.apiSessions.flush(true);
    assert.equal(await apiSessionId(t, token), id);
    admin = await t.loginAsAdmin();
  });

  it('answers a reconnecting router’s session check with the sessions that ended', async () => {
    await openEdgeRouter(t, admin);
    const user = await createUser(t, admin);
    const { serviceId } = await grantService(t, admin, user.id, ['Dial']);
    const session = await createSession(t, await login(t, user.username, user.password), serviceId);
    await sync.poll();
    const { channel } = connections.connect('router-validate');
    await sync.idle();
    channel.take();
    const request = toBinary(
      ValidateSessionsRequestSchema,
      create(ValidateSessionsRequestSchema, { sessionTokens: [session.token, 'ended-token'] }),
    );
    await channel.receive(ContentType.ValidateSessionsRequestType, request);
    await sync.idle();
    assert.deepEqual(channel.take(), [{ type: 'sessionRemoved', tokens: ['ended-token'], ids: [] }]);
  });

  it('sends the full state again, under a later sync id, when a router asks', async () => {
    const { channel } = connections.connect('router-resync');
    await sync.idle();
    const first = channel.take().filter((message) => message.type === 'added');
    const resync = toBinary(
      RequestClientReSyncSchema,
      create(RequestClientReSyncSchema, { reason: 'error during api session sync: timeout' }),
    );
    // Asked three times at once: one state.
    await Promise.all([1, 2, 3].map(() => channel.receive(ContentType.RequestClientReSyncType, resync)));
    await sync.idle();
    const again = channel.take() as Array<Extract<DecodedMessage, { type: 'added' }>>;
    assert.equal(new Set(again.map((message) => (message.state as { id: string }).id)).size, 1);
    assert.ok(again.length > 0 && again.every((message) => message.type === 'added' && message.isFullState));
    const idOf = (message: { state: unknown }) => (message.state as { id: string }).id;
    assert.ok(idOf(again[0]!) > idOf(first[0]!), 'the router abandons an unfinished sync only for a later id');
    assert.deepEqual(
      new Set(again.flatMap((message) => message.tokens)),
      new Set(first.flatMap((message) => message.tokens)),
    );
  });
});
