// Who may hold a control channel: only an enrolled, enabled router presenting the certificate enrollment gave it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createEdgeRouter } from '../support/factories.js';
import { capturingLogger } from '../support/log-capture.js';
import { createTestCa, issueTestCertificate } from '../support/third-party-ca.js';
import { buildTlsTestApp, type TlsTestApp } from '../support/tls-client.js';
import { enrollEdgeRouter, TestRouter, waitUntil, type EnrolledRouter } from '../support/test-router.js';

const MANAGEMENT = '/edge/management/v1';
const CLOSED = /connection closed before the hello exchange/;

describe('router control plane: refused routers', () => {
  let t: TlsTestApp;
  let token: string;
  let port: number;
  let routerA: EnrolledRouter;
  let routerB: EnrolledRouter;
  const { logger, lines } = capturingLogger();

  before(async () => {
    t = await buildTlsTestApp({ logger });
    token = await t.loginAsAdmin();
    port = (await t.fabric.controlPlane.listen('127.0.0.1', 0)).port;
    [routerA, routerB] = [
      await enrollEdgeRouter(t, token, { name: 'a' }),
      await enrollEdgeRouter(t, token, { name: 'b' }),
    ];
  });
  after(() => t.close());

  const connect = (router: { id: string; certPem: string; keyPem: string }) =>
    TestRouter.connect({ port, router, ca: t.deps.pki.caBundlePem });
  /** The refusal is logged once, naming the router and the reason. */
  const refusedFor = (routerId: string) =>
    lines
      .filter((line) => line.msg === 'router connection refused' && line.routerId === routerId)
      .map((line) => String(line.reason));
  const isOnline = async (id: string) =>
    (
      (await t.call({ method: 'GET', url: `${MANAGEMENT}/edge-routers/${id}`, token })).body as {
        data: { isOnline: boolean };
      }
    ).data.isOnline;
  const patch = (id: string, body: object) =>
    t.call({ method: 'PATCH', url: `${MANAGEMENT}/edge-routers/${id}`, token, payload: body });

  it('refuses a certificate of another CA, even one naming the router', async () => {
    const other = await createTestCa('other', t.clock());
    const forged = await issueTestCertificate(other, { commonName: routerA.id, now: t.clock() });
    await assert.rejects(connect({ id: routerA.id, ...forged }), CLOSED);
    assert.match(refusedFor(routerA.id).at(-1)!, /does not chain to the edge signing CA/);
  });

  it("refuses another router's certificate (wrong fingerprint)", async () => {
    await assert.rejects(connect({ ...routerA, id: routerB.id }), CLOSED);
    assert.match(refusedFor(routerB.id).at(-1)!, /incorrect fingerprint/);
  });

  it('refuses an unenrolled router and an unknown one', async () => {
    const unenrolled = await createEdgeRouter(t, token, { name: 'unenrolled' });
    await assert.rejects(connect({ ...routerA, id: unenrolled }), CLOSED);
    assert.match(refusedFor(unenrolled).at(-1)!, /router enrollment incomplete/);
    await assert.rejects(connect({ ...routerA, id: 'no-such-router' }), CLOSED);
    assert.match(refusedFor('no-such-router').at(-1)!, /unknown\/unenrolled router/);
  });

  it('refuses a disabled router, and drops a connected one when it is disabled', async () => {
    const connected = await connect(routerB);
    await t.fabric.controlPlane.presenceFlushed();
    assert.equal(await isOnline(routerB.id), true);
    assert.equal((await patch(routerB.id, { disabled: true })).status, 200);
    await connected.channel.closed;
    await waitUntil(async () => !(await isOnline(routerB.id)));
    await assert.rejects(connect(routerB), CLOSED);
    assert.match(refusedFor(routerB.id).at(-1)!, /router disabled/);
    assert.equal((await patch(routerB.id, { disabled: false })).status, 200);
    await (await connect(routerB)).close();
  });

  it('drops a connected router that is deleted, and refuses it afterwards', async () => {
    const router = await enrollEdgeRouter(t, token, { name: 'doomed' });
    const connected = await connect(router);
    await t.fabric.controlPlane.presenceFlushed();
    assert.equal(
      (await t.call({ method: 'DELETE', url: `${MANAGEMENT}/edge-routers/${router.id}`, token })).status,
      200,
    );
    await connected.channel.closed;
    await assert.rejects(connect(router), CLOSED);
    assert.match(refusedFor(router.id).at(-1)!, /unknown\/unenrolled router/);
  });
});
