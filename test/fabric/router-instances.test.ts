// Router presence across instances on one database (SQLite file, or PostgreSQL under npm run test:postgres): any
// instance answers REST for routers another holds, a router is refused a second channel on another instance, and the
// routers of an instance that stopped beating (killed) go offline and may connect elsewhere.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OFFLINE_AFTER_MS } from '../../src/system/instance-heartbeat.js';
import { testDatabaseUrl } from '../support/test-app.js';
import { buildTlsTestApp, type TlsTestApp } from '../support/tls-client.js';
import { enrollEdgeRouter, TestRouter, waitUntil, type EnrolledRouter } from '../support/test-router.js';
import { postgresSchema, sqliteFile, type SharedDatabase } from '../support/two-instances.js';

const MANAGEMENT = '/edge/management/v1';

describe(`router presence on two instances (${testDatabaseUrl ? 'PostgreSQL' : 'SQLite'})`, () => {
  let database: SharedDatabase;
  let a: TlsTestApp;
  let b: TlsTestApp;
  let tokenA: string;
  let tokenB: string;
  let portA: number;
  let portB: number;
  let router: EnrolledRouter;

  before(async () => {
    database = testDatabaseUrl ? await postgresSchema() : sqliteFile();
    a = await buildTlsTestApp(database.options);
    b = await buildTlsTestApp(database.options);
    [tokenA, tokenB] = [await a.loginAsAdmin(), await b.loginAsAdmin()];
    portA = (await a.fabric.controlPlane.listen('127.0.0.1', 0)).port;
    portB = (await b.fabric.controlPlane.listen('127.0.0.1', 0)).port;
    router = await enrollEdgeRouter(a, tokenA, { name: 'shared' });
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await database?.drop();
  });

  const isOnline = async (t: TlsTestApp, token: string) =>
    (
      (await t.call({ method: 'GET', url: `${MANAGEMENT}/edge-routers/${router.id}`, token })).body as {
        data: { isOnline: boolean };
      }
    ).data.isOnline;
  const connect = (port: number) => TestRouter.connect({ port, router, ca: a.deps.pki.caBundlePem });

  it('shows a router held by one instance online on the other, and offline on both once it leaves', async () => {
    const connected = await connect(portA);
    await a.fabric.controlPlane.presenceFlushed();
    assert.equal(await isOnline(b, tokenB), true);
    await connected.close();
    await waitUntil(async () => !(await isOnline(b, tokenB)));
    assert.equal(await isOnline(a, tokenA), false);
  });

  it('refuses a second channel of a router on another instance while the first is held', async () => {
    const connected = await connect(portA);
    try {
      await a.fabric.controlPlane.presenceFlushed();
      await assert.rejects(connect(portB), /connection closed before the hello exchange/);
    } finally {
      await connected.close();
      await a.fabric.controlPlane.presenceFlushed();
    }
  });

  it('releases the routers of an instance that stopped beating, and lets them connect to another', async () => {
    const held = await connect(portA);
    await a.fabric.controlPlane.presenceFlushed();
    assert.equal(await isOnline(b, tokenB), true);
    // A is "killed": it beats no more. B's time moves past the offline limit; B beats, then sweeps.
    b.clock.advance(OFFLINE_AFTER_MS + 1000);
    await b.deps.heartbeat.beat();
    await b.fabric.controlPlane.sweepDeadInstances();
    assert.equal(await isOnline(b, tokenB), false);
    const moved = await connect(portB);
    await b.fabric.controlPlane.presenceFlushed();
    assert.equal(await isOnline(b, tokenB), true);
    await moved.close();
    held.socket.destroy();
  });
});
