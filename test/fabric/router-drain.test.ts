// Drain and decommission as the router asks for them (issue 30 item 3; `ziti agent router quiesce|dequiesce|
// decommission` make a v1.1.8 router send 1039, 1040, 1043): quiesce fails its terminators and keeps their
// precedence, dequiesce brings it back, decommission deletes the router and closes its channel. SQLite, or
// PostgreSQL under npm run test:postgres.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createEntity, createService } from '../support/factories.js';
import { testDatabaseUrl } from '../support/test-app.js';
import { buildTlsTestApp, type TlsTestApp } from '../support/tls-client.js';
import { enrollEdgeRouter, TestRouter, waitUntil } from '../support/test-router.js';

const MANAGEMENT = '/edge/management/v1';

describe(`router drain and decommission (${testDatabaseUrl ? 'PostgreSQL' : 'SQLite'})`, () => {
  let t: TlsTestApp;
  let token: string;
  let port: number;

  before(async () => {
    t = await buildTlsTestApp();
    token = await t.loginAsAdmin();
    port = (await t.fabric.controlPlane.listen('127.0.0.1', 0)).port;
  });
  after(() => t.close());

  const precedences = async (ids: string[]) =>
    Promise.all(
      ids.map(
        async (id) =>
          (
            (await t.call({ method: 'GET', url: `${MANAGEMENT}/terminators/${id}`, token })).body as {
              data: { precedence: string };
            }
          ).data.precedence,
      ),
    );

  it('quiesces (terminators fail, precedence kept) and dequiesces (precedence back), answering as upstream', async () => {
    const router = await enrollEdgeRouter(t, token, { name: 'draining' });
    const service = await createService(t, token);
    const terminator = (precedence: string, address: string) =>
      createEntity(t, token, 'terminators', { service, router: router.id, binding: 'transport', address, precedence });
    const ids = [
      await terminator('required', 'tcp:127.0.0.1:1'),
      await terminator('default', 'tcp:127.0.0.1:2'),
      await terminator('failed', 'tcp:127.0.0.1:3'),
    ];
    const connected = await TestRouter.connect({ port, router, ca: t.deps.pki.caBundlePem });
    assert.deepEqual(await connected.drain('quiesce'), { success: true, message: 'router quiesced' });
    assert.deepEqual(await precedences(ids), ['failed', 'failed', 'failed']);
    // Twice is harmless: the saved precedences are not overwritten with 'failed'.
    assert.deepEqual(await connected.drain('quiesce'), { success: true, message: 'router quiesced' });
    assert.deepEqual(await connected.drain('dequiesce'), { success: true, message: 'router dequiesced' });
    assert.deepEqual(await precedences(ids), ['required', 'default', 'failed']);
    assert.deepEqual(await connected.drain('dequiesce'), { success: true, message: 'router dequiesced' });
    assert.deepEqual(await precedences(ids), ['required', 'default', 'failed']);
    await connected.close();
  });

  it('decommissions: the router is deleted, its channel closed without an answer, and it is refused after', async () => {
    const router = await enrollEdgeRouter(t, token, { name: 'leaving' });
    const connected = await TestRouter.connect({ port, router, ca: t.deps.pki.caBundlePem });
    await assert.rejects(connected.drain('decommission', 10_000), /channel closed/);
    const found = await t.call({ method: 'GET', url: `${MANAGEMENT}/edge-routers/${router.id}`, token });
    assert.equal(found.status, 404);
    await waitUntil(() => Promise.resolve(connected.channel.isClosed));
    await assert.rejects(
      TestRouter.connect({ port, router, ca: t.deps.pki.caBundlePem }),
      /connection closed before the hello exchange/,
    );
  });
});
