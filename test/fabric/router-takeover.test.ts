// Races on a router's control channel (issue 30 items 6 and 7), on SQLite or (npm run test:postgres) PostgreSQL:
// simultaneous hellos of one router let one in and leave it online when the others close; a controller restarted on
// its home takes over the routers its killed predecessor held at once, and the predecessor's channel (were it alive)
// goes when it sees the router held elsewhere.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { testDatabaseUrl } from '../support/test-app.js';
import { buildTlsTestApp, type TlsTestApp } from '../support/tls-client.js';
import { enrollEdgeRouter, TestRouter, waitUntil, type EnrolledRouter } from '../support/test-router.js';
import { postgresSchema, sqliteFile, type SharedDatabase } from '../support/two-instances.js';

const MANAGEMENT = '/edge/management/v1';
const store = testDatabaseUrl ? 'PostgreSQL' : 'SQLite';

async function isOnline(t: TlsTestApp, token: string, id: string): Promise<boolean> {
  const found = await t.call({ method: 'GET', url: `${MANAGEMENT}/edge-routers/${id}`, token });
  return (found.body as { data: { isOnline: boolean } }).data.isOnline;
}

describe(`router control plane: simultaneous hellos (${store})`, () => {
  let database: SharedDatabase;
  let t: TlsTestApp;
  let token: string;
  let port: number;
  let router: EnrolledRouter;

  before(async () => {
    database = testDatabaseUrl ? await postgresSchema() : sqliteFile();
    t = await buildTlsTestApp(database.options);
    token = await t.loginAsAdmin();
    port = (await t.fabric.controlPlane.listen('127.0.0.1', 0)).port;
    router = await enrollEdgeRouter(t, token, { name: 'many-hellos' });
  });
  after(async () => {
    await t?.close();
    await database?.drop();
  });

  it('lets one of 200 simultaneous hellos in, and keeps the router online while that one is open', async () => {
    const attempts = await Promise.allSettled(
      Array.from({ length: 200 }, () => TestRouter.connect({ port, router, ca: t.deps.pki.caBundlePem })),
    );
    const accepted = attempts.flatMap((attempt) => (attempt.status === 'fulfilled' ? [attempt.value] : []));
    assert.equal(accepted.length, 1, `${accepted.length} accepted`);
    await t.fabric.controlPlane.presenceFlushed();
    assert.equal(await isOnline(t, token, router.id), true);
    await accepted[0]!.close();
    await waitUntil(async () => !(await isOnline(t, token, router.id)));
  });

  it('leaves the router online when an older channel it replaced closes', async () => {
    const first = await TestRouter.connect({ port, router, ca: t.deps.pki.caBundlePem });
    await t.fabric.controlPlane.presenceFlushed();
    // Past the churn limit, a new connection replaces the old one (upstream's "churn threshold met").
    t.clock.advance(61_000);
    const second = await TestRouter.connect({ port, router, ca: t.deps.pki.caBundlePem });
    await first.channel.closed;
    await t.fabric.controlPlane.presenceFlushed();
    assert.equal(await isOnline(t, token, router.id), true);
    assert.equal(t.fabric.controlPlane.routers.get(router.id)?.channel.isClosed, false);
    await second.close();
    await waitUntil(async () => !(await isOnline(t, token, router.id)));
  });
});

describe(`router control plane: a controller restarted on its home (${store})`, () => {
  let database: SharedDatabase;
  let home: string;
  let killed: TlsTestApp;
  let restarted: TlsTestApp | undefined;

  before(async () => {
    database = testDatabaseUrl ? await postgresSchema() : sqliteFile();
    home = mkdtempSync(join(tmpdir(), 'ziti-restart-'));
    killed = await buildTlsTestApp({ ...database.options, home });
  });
  after(async () => {
    await restarted?.close();
    await killed?.close();
    await database?.drop();
    rmSync(home, { recursive: true, force: true });
  });

  it('takes over the routers of the instance it replaces at once, and shows them offline until they reconnect', async () => {
    const token = await killed.loginAsAdmin();
    const port = (await killed.fabric.controlPlane.listen('127.0.0.1', 0)).port;
    const router = await enrollEdgeRouter(killed, token, { name: 'survivor' });
    const held = await TestRouter.connect({ port, router, ca: killed.deps.pki.caBundlePem });
    await killed.fabric.controlPlane.presenceFlushed();

    // "kill -9": the old process stops beating and is never heard from again; a new one starts on the same home
    // while its heartbeat is still fresh and the router's channel to it still looks open.
    // (Both in this one process: on SQLite a write of the one would hold the other's synchronous driver.)
    await killed.fabric.edgeSync.idle();
    restarted = await buildTlsTestApp({ ...database.options, home });
    const again = await restarted.loginAsAdmin();
    assert.equal(await isOnline(restarted, again, router.id), false, 'no live process holds it');
    const newPort = (await restarted.fabric.controlPlane.listen('127.0.0.1', 0)).port;
    const reconnected = await TestRouter.connect({ port: newPort, router, ca: restarted.deps.pki.caBundlePem });
    await restarted.fabric.controlPlane.presenceFlushed();
    assert.equal(await isOnline(restarted, again, router.id), true);

    // Had the old process lived on, it drops its channel once it sees the router held by the new one.
    await killed.fabric.controlPlane.watchRouters();
    await held.channel.closed;
    assert.equal(await isOnline(restarted, again, router.id), true);
    await reconnected.close();
  });
});
