// Edge routers over real TLS (the TypeScript test router): the edge hello and sync bring a router to SYNC_DONE with
// its hostname and URLs in REST, then every API-session change made through either of two instances reaches the
// router, its heartbeats keep its clients' sessions alive, and a resync sends the state again. SQLite (one file,
// two instances) or, with ZITI_TEST_DATABASE_URL, PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createUser, login } from '../support/factories.js';
import { createSession, grantService } from '../support/sessions.js';
import { enrollEdgeRouter, TestRouter, waitUntil, type EnrolledRouter } from '../support/test-router.js';
import { testDatabaseUrl } from '../support/test-app.js';
import { buildTlsTestApp, type TlsTestApp } from '../support/tls-client.js';
import { postgresSchema, sqliteFile, type SharedDatabase } from '../support/two-instances.js';

const MANAGEMENT = '/edge/management/v1';
const CLIENT = '/edge/client/v1';

describe('edge routers: hello and API-session sync', () => {
  let database: SharedDatabase;
  let a: TlsTestApp;
  let b: TlsTestApp;
  let adminA: string;
  let adminB: string;
  let ctrlPort: number;
  let enrolled: EnrolledRouter;
  let router: TestRouter;

  before(async () => {
    database = testDatabaseUrl ? await postgresSchema() : sqliteFile();
    a = await buildTlsTestApp(database.options);
    b = await buildTlsTestApp(database.options);
    adminA = await a.loginAsAdmin();
    adminB = await b.loginAsAdmin();
    ctrlPort = (await a.fabric.controlPlane.listen('127.0.0.1', 0)).port;
    enrolled = await enrollEdgeRouter(a, adminA, { name: 'sync-router', roleAttributes: ['sync'] });
    await a.call({
      method: 'POST',
      url: `${MANAGEMENT}/edge-router-policies`,
      token: adminA,
      payload: { name: 'all-sync', semantic: 'AnyOf', identityRoles: ['#all'], edgeRouterRoles: ['#sync'] },
    });
    await a.call({
      method: 'POST',
      url: `${MANAGEMENT}/service-edge-router-policies`,
      token: adminA,
      payload: { name: 'all-sync', semantic: 'AnyOf', serviceRoles: ['#all'], edgeRouterRoles: ['#sync'] },
    });
    router = await TestRouter.connect({
      port: ctrlPort,
      router: enrolled,
      ca: a.deps.pki.caBundlePem,
      edgeListener: { hostname: 'edge.example', port: 3022 },
    });
  });
  after(async () => {
    await router?.close();
    await a?.close();
    await b?.close();
    await database?.drop();
  });

  const edgeRouter = async (t: TlsTestApp, token: string) =>
    (
      (await t.call({ method: 'GET', url: `${MANAGEMENT}/edge-routers/${enrolled.id}`, token })).body as {
        data: Record<string, unknown>;
      }
    ).data;

  it('receives every API session, and shows SYNC_DONE with its hostname and URLs on both instances', async () => {
    await router.edge.until(() => router.edge.appliedSyncs.length === 1);
    assert.ok(router.edge.apiSessions.has(adminA) && router.edge.apiSessions.has(adminB));
    await waitUntil(async () => (await edgeRouter(b, adminB)).syncStatus === 'SYNC_DONE');
    for (const [t, token] of [
      [a, adminA],
      [b, adminB],
    ] as const) {
      const detail = await edgeRouter(t, token);
      assert.equal(detail.isOnline, true);
      assert.equal(detail.hostname, 'edge.example');
      assert.deepEqual(detail.supportedProtocols, { tls: 'tls://edge.example:3022' });
    }
  });

  it('lists the router’s URL in a session made on the other instance', async () => {
    const user = await createUser(b, adminB);
    const { serviceId } = await grantService(b, adminB, user.id, ['Dial']);
    const session = await createSession(b, await login(b, user.username, user.password), serviceId);
    assert.deepEqual(
      session.edgeRouters.map((edge) => edge.urls),
      [{ tls: 'tls://edge.example:3022' }],
    );
    await b.call({ method: 'DELETE', url: `${MANAGEMENT}/identities/${user.id}`, token: adminB });
    await router.edge.until(() => router.edge.removedSessions.includes(session.token));
  });

  it('learns of a login and a logout made on the other instance', async () => {
    const user = await createUser(b, adminB);
    const token = await login(b, user.username, user.password);
    await router.edge.until(() => router.edge.apiSessions.has(token));
    assert.equal((await b.call({ method: 'DELETE', url: `${CLIENT}/current-api-session`, token })).status, 200);
    await router.edge.until(() => !router.edge.apiSessions.has(token));
  });

  it('keeps alive the API sessions its heartbeats name', async () => {
    const user = await createUser(a, adminA);
    const token = await login(a, user.username, user.password);
    await a.deps.apiSessions.flush(false);
    for (const t of [a, b]) t.clock.advance(20 * 60_000);
    router.edge.heartbeat([token]);
    await waitUntil(async () => {
      await a.deps.apiSessions.flush(false);
      const detail = await b.call({ method: 'GET', url: `${CLIENT}/current-api-session`, token });
      return (
        detail.status === 200 &&
        (detail.body as { data: { lastActivityAt: string } }).data.lastActivityAt === a.clock().toISOString()
      );
    });
    for (const t of [a, b]) t.clock.advance(20 * 60_000);
    await b.deps.apiSessions.flush(true);
    assert.equal(
      (await b.call({ method: 'GET', url: `${CLIENT}/current-api-session`, token })).status,
      200,
      'alive 40 minutes after its last request',
    );
    adminA = await a.loginAsAdmin();
    adminB = await b.loginAsAdmin();
  });

  it('sends the state again when the router asks', async () => {
    const applied = router.edge.appliedSyncs.length;
    router.edge.requestResync('error during api session sync: timeout, did not receive all updates in time');
    await router.edge.until(() => router.edge.appliedSyncs.length === applied + 1);
    assert.ok(router.edge.apiSessions.has(adminA) && router.edge.apiSessions.has(adminB));
  });
});
