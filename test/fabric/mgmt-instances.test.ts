// Inspections across instances: two controller instances on one database (a SQLite file; PostgreSQL under npm run
// test:postgres), a TypeScript router connected to each over real TLS. Either instance's `POST
// /fabric/v1/inspections` lists both routers as connected and gets both routers' values, the one held by the other
// instance reached through the router inbox as circuits reach it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testDatabaseUrl } from '../support/test-app.js';
import { buildTlsTestApp, type TlsTestApp } from '../support/tls-client.js';
import { enrollEdgeRouter, TestRouter } from '../support/test-router.js';
import { postgresSchema, sqliteFile, type SharedDatabase } from '../support/two-instances.js';

describe(`inspections across two instances (${testDatabaseUrl ? 'PostgreSQL' : 'SQLite'})`, () => {
  let database: SharedDatabase;
  let one: TlsTestApp;
  let two: TlsTestApp;
  let admin: string;
  const routers: TestRouter[] = [];
  const ids: string[] = [];

  before(async () => {
    database = testDatabaseUrl ? await postgresSchema() : sqliteFile();
    one = await buildTlsTestApp(database.options);
    two = await buildTlsTestApp(database.options);
    admin = await one.loginAsAdmin();
    for (const [instance, name] of [
      [one, 'i-a'],
      [two, 'i-b'],
    ] as const) {
      const port = (await instance.fabric.controlPlane.listen('127.0.0.1', 0)).port;
      const router = await enrollEdgeRouter(one, admin, { name });
      const connected = await TestRouter.connect({ port, router, ca: one.deps.pki.caBundlePem });
      connected.inspect.values.set('router-controllers', JSON.stringify({ held: name }));
      await instance.fabric.controlPlane.presenceFlushed();
      routers.push(connected);
      ids.push(router.id);
    }
  });
  after(async () => {
    for (const router of routers) await router.close();
    await one.close();
    await two.close();
    await database.drop();
  });

  it("reaches the other instance's router and lists both as connected, from either instance", async () => {
    for (const instance of [one, two]) {
      const reply = await instance.call({
        method: 'POST',
        url: '/fabric/v1/inspections',
        token: admin,
        payload: { appRegex: '.*', requestedValues: ['router-controllers', 'connected-routers'] },
      });
      assert.equal(reply.status, 200, reply.text);
      const body = reply.body as { success: boolean; values: { appId: string; name: string; value: unknown }[] };
      assert.equal(body.success, true, reply.text);
      const fromRouters = body.values
        .filter((value) => value.name === 'router-controllers')
        .map((value) => [value.appId, value.value])
        .sort();
      assert.deepEqual(
        fromRouters,
        [
          [ids[0], { held: 'i-a' }],
          [ids[1], { held: 'i-b' }],
        ].sort(),
      );
      const connected = body.values.find((value) => value.name === 'connected-routers')!.value as { Name: string }[];
      assert.deepEqual(connected.map((router) => router.Name).sort(), ['i-a', 'i-b']);
    }
  });
});
