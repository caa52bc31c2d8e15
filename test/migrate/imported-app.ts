// A test app on a database imported from the recorded upstream v1.1.8 fixture: SQLite in a temporary file, or a
// scratch PostgreSQL schema when ZITI_TEST_DATABASE_URL is set (npm run test:postgres), as every test app.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { importTables, type ImportResult } from '../../src/migrate/import-database.js';
import { readUpstreamDatabase, type UpstreamData } from '../../src/migrate/read-upstream-database.js';
import { migrations } from '../../src/store/migrations/index.js';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.js';
import { createScratchSchema } from '../../src/store/postgres/scratch-schema.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import { buildTestApp, testDatabaseUrl, type TestApp, type TestAppOptions } from '../support/test-app.js';
import { buildTlsTestApp } from '../support/tls-client.js';
import type { RecordedSecrets } from './upstream-client.js';

export const fixtureFolder = new URL('./fixtures/v1.1.8/', import.meta.url).pathname;

export const recordedSecrets = (): RecordedSecrets =>
  JSON.parse(readFileSync(join(fixtureFolder, 'secrets.json'), 'utf8')) as RecordedSecrets;

export const recordedAnswers = (): Record<string, unknown> =>
  JSON.parse(readFileSync(join(fixtureFolder, 'answers.json'), 'utf8')) as Record<string, unknown>;

/** The recorded controller's PKI files, as the settings name them (upstream's keys). */
export const fixturePkiSettings = () => {
  const at = (name: string) => join(fixtureFolder, 'pki', name);
  return {
    pkiServerCert: at('server.chain.pem'),
    pkiServerKey: at('server.key'),
    pkiCa: at('ca.pem'),
    pkiSigningCert: at('signing.cert'),
    pkiSigningKey: at('signing.key'),
  };
};

/** When the fixture was recorded: its certificates and pending enrollments are valid then. */
export function recordedAt(): Date {
  const identities = (recordedAnswers()['/identities?limit=500'] as { data: { createdAt: string }[] }).data;
  return new Date(Math.max(...identities.map((identity) => Date.parse(identity.createdAt))));
}

/** The fixture database written out to `folder`, as upstream left it. */
export function upstreamDatabaseFile(folder: string): string {
  const file = join(folder, 'upstream-ctrl.db');
  writeFileSync(file, gunzipSync(readFileSync(join(fixtureFolder, 'ctrl.db.gz'))));
  return file;
}

export interface ImportedApp {
  /** A TlsTestApp (listening on a loopback port) when asked to listen. */
  app: TestApp & { port?: number };
  data: UpstreamData;
  result: ImportResult;
  close(): Promise<void>;
}

/** Imports the fixture into a fresh database, then opens a test app on it (no default admin is made: one came over). */
export async function importedApp(options: TestAppOptions = {}, listen = false): Promise<ImportedApp> {
  const folder = mkdtempSync(join(tmpdir(), 'ziti-migrate-test-'));
  const scratch = testDatabaseUrl ? await createScratchSchema(testDatabaseUrl, 'ziti_migrate_test') : undefined;
  const databaseFile = join(folder, 'ctrl.db');
  const open = (): Promise<Store> =>
    scratch
      ? openPostgresStore({ url: scratch.url, migrations, poolSize: 4 })
      : openSqliteStore({ file: databaseFile, migrations });
  const data = readUpstreamDatabase(upstreamDatabaseFile(folder), new Date().toISOString());
  const store = await open();
  let result: ImportResult;
  try {
    result = await importTables(store, data.tables);
  } finally {
    await store.close();
  }
  const appOptions = {
    ...options,
    ...(scratch ? { settings: { ...options.settings, databaseUrl: scratch.url } } : { databaseFile }),
  };
  const app = listen ? await buildTlsTestApp(appOptions) : await buildTestApp(appOptions);
  return {
    app,
    data,
    result,
    async close() {
      await app.close();
      await scratch?.drop();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
