// `ziti fabric db snapshot [path]`: POST /fabric/v1/database/snapshot writes where the admin names (upstream's
// SnapshotDatabaseToFile placeholders), refuses a file already there, shares the once-a-minute rule, and on
// PostgreSQL says to use the database's own backups.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../support/conformance.js';
import { buildTestApp, testDatabaseUrl, testTime, type TestApp } from '../../support/test-app.js';

const url = '/fabric/v1/database/snapshot';

describe('createDatabaseSnapshotWithPath', () => {
  let t: TestApp;
  let token: string;
  let folder: string;
  before(async () => {
    folder = mkdtempSync(join(tmpdir(), 'ziti-fabric-snapshot-'));
    t = await buildTestApp(testDatabaseUrl ? {} : { databaseFile: join(folder, 'ctrl.db') });
    token = await t.loginAsAdmin();
  });
  after(async () => {
    await t.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('writes to the path named, with DB_DIR, DB_FILE, DATE and TIME filled in, and answers the path', async (test) => {
    if (testDatabaseUrl) return test.skip('SQLite only: PostgreSQL is answered below');
    const result = await t.call({ method: 'POST', url, token, payload: { path: 'DB_DIR/copy-of-DB_FILE-DATE-TIME' } });
    assert.equal(result.status, 200, result.text);
    const stamp = testTime().slice(0, 19).replace(/[-:]/g, '').replace('T', '-');
    const written = join(folder, `copy-of-ctrl.db-${stamp}`);
    assert.equal(result.text, `${JSON.stringify({ data: { path: written }, meta: {} })}\n`);
    assert.equal(statSync(written).mode & 0o777, 0o600);

    // The same once-a-minute rule as the snapshot without a path.
    assertError(await t.call({ method: 'POST', url, token, payload: {} }), 429, 'RATE_LIMITED');
    t.clock.advance(60_000);
    // A file already there is refused as upstream refuses it, and nothing is written over it.
    const again = await t.call({ method: 'POST', url, token, payload: { path: written } });
    assertError(again, 500, 'UNHANDLED');
    assert.match(again.text, /bolt db backup already exists/);
    t.clock.advance(60_000);
    const byDefault = await t.call({ method: 'POST', url, token, payload: {} });
    assert.equal(byDefault.status, 200, byDefault.text);
    const path = (byDefault.body as { data: { path: string } }).data.path;
    assert.ok(path.startsWith(join(folder, 'ctrl.db-')) && existsSync(path), path);
  });

  it('on PostgreSQL points to the database’s own backups', async (test) => {
    if (!testDatabaseUrl) return test.skip('PostgreSQL only');
    const result = await t.call({ method: 'POST', url, token, payload: { path: '/tmp/x' } });
    assertError(result, 501, 'NOT_IMPLEMENTED');
    assert.match(result.text, /pg_dump/);
  });

  it('is for admins only', async () => {
    assertError(await t.call({ method: 'POST', url, payload: { path: '/tmp/x' } }), 401, 'UNAUTHORIZED');
  });
});
