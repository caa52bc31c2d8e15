// The one command (migrate-upstream.ts) on the recorded upstream home: what a dry run says, what a run writes, what
// it refuses, and that the new home starts as the same network on upstream's PKI, SQLite or PostgreSQL.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { openController } from '../../src/controller.js';
import { migrateUpstream, type MigrateOptions } from '../../src/migrate/migrate-upstream.js';
import { readUpstreamDatabase } from '../../src/migrate/read-upstream-database.js';
import { certificateFingerprint } from '../../src/pki/fingerprint.js';
import { createScratchSchema, type ScratchSchema } from '../../src/store/postgres/scratch-schema.js';
import { loadSettings } from '../../src/settings/load-settings.js';
import { testDatabaseUrl } from '../support/test-app.js';
import { layOutUpstreamHome } from './upstream-home-fixture.js';

/** Every file under `folder` with its content's hash: what "upstream's home is never written" is checked by. */
function snapshot(folder: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else files[path] = createHash('sha256').update(readFileSync(path)).digest('hex');
    }
  };
  walk(folder);
  return files;
}

describe('npm run migrate:upstream', () => {
  let work: string;
  let upstreamFile: string;
  let scratch: ScratchSchema | undefined;
  const options = (home: string, extra: Partial<MigrateOptions> = {}): MigrateOptions => ({
    settingsFile: upstreamFile,
    home,
    databaseUrl: scratch?.url,
    isDryRun: false,
    env: {},
    ...extra,
  });
  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'ziti-migrate-command-'));
    mkdirSync(join(work, 'upstream'));
    upstreamFile = layOutUpstreamHome(join(work, 'upstream'));
    scratch = testDatabaseUrl ? await createScratchSchema(testDatabaseUrl, 'ziti_migrate_cmd') : undefined;
  });
  after(async () => {
    await scratch?.drop();
    rmSync(work, { recursive: true, force: true });
  });

  it('reports per type on a dry run and writes nothing', async () => {
    const home = join(work, 'dry');
    const report = await migrateUpstream(options(home, { isDryRun: true }));
    assert.equal(report.data.seen.get('identities'), 10);
    assert.equal(report.data.seen.get('routers'), 3);
    assert.equal(report.imported, undefined);
    assert.ok(report.upstream.ignored.includes('trustDomain'));
    assert.equal(existsSync(home), false);
  });

  it('writes a home that starts as the same network on the same addresses, upstream untouched', async () => {
    const before = snapshot(join(work, 'upstream'));
    const home = join(work, 'new');
    const report = await migrateUpstream(options(home));
    assert.equal(report.imported?.written.get('identity'), 10);
    assert.deepEqual(snapshot(join(work, 'upstream')), before);
    assert.equal(statSync(join(home, 'pki', 'upstream', 'signing.key.pem')).mode & 0o777, 0o600);

    const settings = { ...loadSettings({ argv: ['--home', home], env: {}, cwd: work }), databaseUrl: scratch?.url };
    // The port the recorded upstream listened on, for the API and (by ALPN) routers.
    const port = Number(/listener: tls:127\.0\.0\.1:(\d+)/.exec(readFileSync(upstreamFile, 'utf8'))?.[1]);
    assert.equal(settings.advertisedPort, port);
    assert.equal(settings.ctrlAdvertisedPort, port);
    assert.deepEqual(settings.ignoredSettings, []);
    const controller = await openController(settings, { logger: pino({ level: 'silent' }) });
    try {
      assert.equal(controller.admin.created, false, 'the default admin came over');
      const serverChain = readFileSync(join(work, 'upstream', 'pki/intermediate-ca/certs/server.chain.pem'), 'utf8');
      assert.equal(controller.deps.pki.serverCertFingerprint, certificateFingerprint(serverChain));
      const login = await controller.app.inject({
        method: 'POST',
        url: '/edge/management/v1/authenticate?method=password',
        payload: { username: 'admin', password: 'Admin-Password-1' },
      });
      assert.equal(login.statusCode, 200, login.body);
    } finally {
      await controller.close();
    }
  });

  it('refuses a home that is not empty', async () => {
    const home = join(work, 'occupied');
    mkdirSync(home);
    writeFileSync(join(home, 'notes.txt'), 'mine');
    await assert.rejects(migrateUpstream(options(home)), /is not empty/);
  });

  it('refuses a database upstream still holds open', async () => {
    const database = join(work, 'upstream', 'ctrl.db');
    // bbolt's exclusive flock, held as a running upstream holds it.
    const holder = spawn('flock', ['--exclusive', database, 'sleep', '30'], { stdio: 'ignore' });
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      await assert.rejects(migrateUpstream(options(join(work, 'locked'), { isDryRun: true })), /in use/);
    } finally {
      holder.kill();
    }
  });

  it('refuses a database of another schema version, saying what to do', () => {
    const data = readFileSync(join(work, 'upstream', 'ctrl.db'));
    // versions/edge = int64 36, stored as the key `edge` then 0x03 and 8 bytes little-endian.
    // Every copy: pages a later commit replaced may still hold an older one.
    const stored = Buffer.from([0x65, 0x64, 0x67, 0x65, 0x03, 36, 0, 0, 0, 0, 0, 0, 0]);
    let copies = 0;
    for (let at = data.indexOf(stored); at >= 0; at = data.indexOf(stored, at + 1), copies++) data[at + 5] = 35;
    assert.ok(copies > 0);
    const older = join(work, 'older.db');
    writeFileSync(older, data);
    assert.throws(() => readUpstreamDatabase(older, new Date().toISOString()), /version 35; run upstream v1\.1\.8/);
  });
});
