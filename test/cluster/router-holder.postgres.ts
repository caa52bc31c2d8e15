// A router held by an instance that dies, as another instance on the same PostgreSQL database sees it (issue 30 item
// 7): a real controller process holding a router's control channel is killed (SIGKILL). The other instance's clock
// does not move, so to it the dead one's heartbeat stays fresh; still it shows the router offline at once and takes
// the router's reconnect at once, because a live holder is one whose liveness lock the database sees held (migration
// 025, src/store/postgres/instance-lock.ts). npm run test:postgres.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { freePort, startController, waitReady } from '../support/controller-process.js';
import { ADMIN_PASSWORD } from '../support/test-app.js';
import { buildTlsTestApp } from '../support/tls-client.js';
import { enrollEdgeRouter, TestRouter, waitUntil } from '../support/test-router.js';
import { postgresSchema } from '../support/two-instances.js';
import { MANAGEMENT } from '../support/api-paths.js';

describe('a router whose holding instance is killed (PostgreSQL)', () => {
  it('reads offline on another instance at once, and connects to it at once', async (t) => {
    const database = await postgresSchema();
    const home = mkdtempSync(join(tmpdir(), 'ziti-holder-'));
    const b = await buildTlsTestApp(database.options);
    const port = await freePort();
    const a = startController(home, port, {
      args: ['--database-url', database.options.settings!.databaseUrl!, '--password', ADMIN_PASSWORD],
    });
    try {
      const token = await b.loginAsAdmin();
      const router = await enrollEdgeRouter(b, token, { name: 'orphaned' });
      const isOnline = async () =>
        (
          (await b.call({ method: 'GET', url: `${MANAGEMENT}/edge-routers/${router.id}`, token })).body as {
            data: { isOnline: boolean };
          }
        ).data.isOnline;
      const listedOnline = async () =>
        (
          (
            await b.call({
              method: 'GET',
              url: `${MANAGEMENT}/edge-routers?filter=${encodeURIComponent('online = true')}`,
              token,
            })
          ).body as { data: unknown[] }
        ).data.length;
      await waitReady(port, home, a);
      const held = await TestRouter.connect({ port, router, ca: b.deps.pki.caBundlePem });
      await waitUntil(isOnline);
      assert.equal(await listedOnline(), 1);

      a.child.kill('SIGKILL');
      await new Promise((resolve) => a.child.once('exit', resolve));
      const killed = performance.now();
      // The server sees the dead process's connection close within moments; nothing here waits for a heartbeat.
      await waitUntil(async () => !(await isOnline()), 5000);
      const offlineMs = performance.now() - killed;
      t.diagnostic(`offline on the other instance ${Math.round(offlineMs)} ms after the kill`);
      assert.equal(await listedOnline(), 0);
      held.socket.destroy();

      const portB = (await b.fabric.controlPlane.listen('127.0.0.1', 0)).port;
      const moved = await TestRouter.connect({ port: portB, router, ca: b.deps.pki.caBundlePem });
      await b.fabric.controlPlane.presenceFlushed();
      assert.equal(await isOnline(), true);
      await moved.close();
    } finally {
      if (a.child.exitCode === null && a.child.signalCode === null) a.child.kill('SIGKILL');
      await b.close();
      await database.drop();
      rmSync(home, { recursive: true, force: true });
    }
  });
});
