// The test router's lean mode, which bench:routers connects a thousand of: it keeps no message and counts the full
// API-session state rather than keep it, and must count exactly what a router keeping the state holds (a full state
// of more than one chunk, applied once its last chunk is in).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { enrollEdgeRouter, TestRouter } from '../support/test-router.js';
import { buildTlsTestApp, type TlsTestApp } from '../support/tls-client.js';

describe('the lean test router', () => {
  let t: TlsTestApp;
  const routers: TestRouter[] = [];

  before(async () => {
    t = await buildTlsTestApp();
    // 150 logins beside the admin's own: a full state of two chunks (100 a chunk).
    for (let i = 0; i < 150; i++) await t.loginAsAdmin();
  });
  after(async () => {
    await Promise.all(routers.map((router) => router.close()));
    await t.close();
  });

  it('counts the full state a keeping router holds, and keeps no message', async () => {
    const admin = await t.loginAsAdmin();
    const port = (await t.fabric.controlPlane.listen('127.0.0.1', 0)).port;
    const ca = t.deps.pki.caBundlePem;
    const [keeping, lean] = await Promise.all(
      ['keeping', 'lean'].map(async (name) => {
        const router = await TestRouter.connect({
          port,
          router: await enrollEdgeRouter(t, admin, { name }),
          ca,
          lean: name === 'lean',
        });
        routers.push(router);
        await router.edge.until(() => router.edge.fullSyncs.length > 0);
        return router;
      }),
    );
    assert.ok(keeping!.edge.apiSessions.size > 100, 'more than one chunk');
    assert.equal(lean!.edge.fullSyncs[0]?.sessions, keeping!.edge.apiSessions.size);
    assert.equal(keeping!.edge.fullSyncs[0]?.sessions, keeping!.edge.apiSessions.size);
    assert.equal(lean!.edge.apiSessions.size, 0);
    assert.equal(lean!.received.length, 0);
    assert.ok(keeping!.received.length > 0);
  });
});
