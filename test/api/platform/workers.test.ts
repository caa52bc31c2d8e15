// `workers`: several controller processes on one machine sharing the port and the SQLite file, real processes.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort, get, startController, stopController, waitReady } from '../../support/controller-process.js';
import { MANAGEMENT as management } from '../../support/api-paths.js';

describe('workers = 2', () => {
  let home: string;
  before(() => {
    home = mkdtempSync(join(tmpdir(), 'ziti-workers-'));
  });
  after(() => rmSync(home, { recursive: true, force: true }));

  it('two processes serve one port and one database: one admin, both listed, a logout seen by both, one stop', async () => {
    const port = await freePort();
    const running = startController(home, port, { args: ['--workers', '2', '--password', 'workers-admin-1'] });
    try {
      const ca = await waitReady(port, home, running);
      const login = await get(
        port,
        `${management}/authenticate?method=password`,
        ca,
        'POST',
        JSON.stringify({ username: 'admin', password: 'workers-admin-1' }),
      );
      assert.equal(login.status, 200, login.text);
      const token = (JSON.parse(login.text) as { data: { token: string } }).data.token;
      const asAdmin = { 'zt-session': token };

      // Each connection goes to the next worker: both answer, each under its own instance id.
      const seen = new Set<string>();
      for (let attempt = 0; attempt < 50 && seen.size < 2; attempt++) {
        const reply = await get(port, `${management}/current-identity`, ca, 'GET', undefined, asAdmin);
        assert.equal(reply.status, 200, reply.text);
        seen.add(String(reply.headers['ziti-instance-id']));
      }
      assert.equal(seen.size, 2, 'both workers answered');
      const listed = JSON.parse((await get(port, `${management}/controllers`, ca, 'GET', undefined, asAdmin)).text) as {
        data: Array<{ id: string; name: string }>;
      };
      assert.deepEqual(listed.data.map((row) => row.id).sort(), [...seen].sort());
      assert.deepEqual(listed.data.map((row) => row.name).sort(), ['localhost#1', 'localhost#2']);

      const admins = await get(
        port,
        `${management}/identities?filter=${encodeURIComponent('isDefaultAdmin = true')}`,
        ca,
        'GET',
        undefined,
        asAdmin,
      );
      assert.equal(
        (JSON.parse(admins.text) as { meta: { pagination: { totalCount: number } } }).meta.pagination.totalCount,
        1,
        admins.text,
      );

      assert.equal(
        (await get(port, `${management}/current-api-session`, ca, 'DELETE', undefined, asAdmin)).status,
        200,
      );
      for (let request = 0; request < 4; request++) {
        assert.equal(
          (await get(port, `${management}/current-identity`, ca, 'GET', undefined, asAdmin)).status,
          401,
          'the logout holds on every worker',
        );
      }
      assert.equal(
        running.stdout().match(/created with password/g)?.length ?? 0,
        0,
        'a configured password is not printed',
      );
    } finally {
      assert.equal(await stopController(running, 'SIGTERM'), 0, running.stdout());
    }
  });
});
