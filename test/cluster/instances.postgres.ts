// Instances on one PostgreSQL schema as an operator runs them: started together on an empty database, and one
// killed (SIGKILL) in the middle of a write burst while the other keeps serving. npm run test:postgres.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { migrations } from '../../src/store/migrations/index.js';
import { selectRows } from '../../src/store/queries/table-rows.js';
import { freePort, get, startController, waitReady } from '../support/controller-process.js';
import { ADMIN_PASSWORD, buildTestApp, type TestApp } from '../support/test-app.js';
import { postgresSchema } from '../support/two-instances.js';
import { MANAGEMENT as management } from '../support/api-paths.js';

describe('instances on one PostgreSQL database', () => {
  it('started at the same moment on an empty database, migrate once and create one admin', async () => {
    const database = await postgresSchema();
    const apps = await Promise.all([buildTestApp(database.options), buildTestApp(database.options)]);
    try {
      const [a, b] = apps;
      assert.deepEqual(apps.map((app) => app.admin.created).sort(), [false, true]);
      const applied = await a.deps.store.read((db) => selectRows(db, 'schema_migrations'));
      assert.deepEqual(
        applied.map((row) => Number(row.version)).sort((x, y) => x - y),
        migrations.map((migration) => migration.version),
      );
      const admins = await a.deps.store.read((db) => selectRows(db, 'identities', { is_default_admin: 1 }));
      assert.equal(admins.length, 1);
      assert.equal(b.deps.clusterId, a.deps.clusterId);
      assert.equal(b.deps.pki.serverCertPem, a.deps.pki.serverCertPem);
      for (const app of apps) assert.ok(await app.loginAsAdmin());
    } finally {
      for (const app of apps) await app.close();
      await database.drop();
    }
  });

  it('one killed during a write burst: the other keeps serving and every acknowledged write is there', async () => {
    const database = await postgresSchema();
    const home = mkdtempSync(join(tmpdir(), 'ziti-killed-'));
    let b: TestApp | undefined;
    const port = await freePort();
    const a = startController(home, port, {
      args: ['--database-url', database.options.settings!.databaseUrl!, '--password', ADMIN_PASSWORD],
    });
    try {
      const ca = await waitReady(port, home, a);
      b = await buildTestApp(database.options);
      const login = await get(
        port,
        `${management}/authenticate?method=password`,
        ca,
        'POST',
        JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }),
      );
      const tokenA = (JSON.parse(login.text) as { data: { token: string } }).data.token;
      const tokenB = await b.loginAsAdmin();
      const acknowledged: string[] = [];
      let serial = 0;
      const body = () => JSON.stringify({ name: `burst-${++serial}`, type: 'User', isAdmin: false });

      // Four writers on A until it dies; two on B throughout, none of whose requests may fail.
      let killed = false;
      const onA = async () => {
        for (;;) {
          const created = await get(port, `${management}/identities`, ca, 'POST', body(), {
            'zt-session': tokenA,
          }).catch(() => undefined);
          if (!created) return;
          if (created.status === 201) acknowledged.push((JSON.parse(created.text) as { data: { id: string } }).data.id);
        }
      };
      let writtenOnB = 0;
      const onB = async () => {
        while (!killed || writtenOnB < 40) {
          const created = await b!.call({
            method: 'POST',
            url: `${management}/identities`,
            token: tokenB,
            payload: JSON.parse(body()) as object,
          });
          assert.equal(created.status, 201, created.text);
          acknowledged.push((created.body as { data: { id: string } }).data.id);
          if (killed) writtenOnB++;
        }
      };
      const killer = async () => {
        while (acknowledged.length < 40) await new Promise((resolve) => setTimeout(resolve, 20));
        a.child.kill('SIGKILL');
        await new Promise((resolve) => a.child.once('exit', resolve));
        killed = true;
      };
      await Promise.all([onA(), onA(), onA(), onA(), onB(), onB(), killer()]);

      assert.equal(a.child.signalCode, 'SIGKILL');
      for (const id of acknowledged) {
        assert.equal(
          (await b.call({ method: 'GET', url: `${management}/identities/${id}`, token: tokenB })).status,
          200,
          `acknowledged identity ${id} is missing`,
        );
      }
      assert.ok(acknowledged.length >= 80, `${acknowledged.length} writes acknowledged`);
    } finally {
      if (a.child.exitCode === null && a.child.signalCode === null) a.child.kill('SIGKILL');
      await b?.close();
      await database.drop();
      rmSync(home, { recursive: true, force: true });
    }
  });
});
