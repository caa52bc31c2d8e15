// Moves an upstream v1.1.8 network into a new home: reads upstream's settings file and what it names, refuses a
// running upstream, a newer or older database and a non-empty target, then writes the home (settings, PKI copies)
// and imports the database into SQLite there or into PostgreSQL. A dry run reads everything and writes nothing.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { openStore } from '../store/open-store.js';
import { importTables, requireEmptyStore, type ImportResult } from './import-database.js';
import { readUpstreamDatabase, type UpstreamData } from './read-upstream-database.js';
import {
  isDatabaseInUse,
  MigrationError,
  readUpstreamSettings,
  requireEmptyHome,
  writeNewHome,
  type UpstreamSettings,
} from './upstream-home.js';

export interface MigrateOptions {
  /** Upstream's controller settings file. */
  settingsFile: string;
  home: string;
  /** PostgreSQL instead of SQLite in the home. */
  databaseUrl: string | undefined;
  isDryRun: boolean;
  env: Readonly<Record<string, string | undefined>>;
  now?: () => Date;
}

export interface MigrationReport {
  upstream: UpstreamSettings;
  data: UpstreamData;
  /** How long reading the database took. */
  readMs: number;
  /** Undefined on a dry run. */
  imported?: ImportResult & { settingsFile: string };
  /** Whether upstream's database lock could be checked (no `flock` on this machine: not checked). */
  isLockChecked: boolean;
}

export async function migrateUpstream(options: MigrateOptions): Promise<MigrationReport> {
  const now = options.now ?? (() => new Date());
  const upstream = readUpstreamSettings(options.settingsFile, options.env);
  const inUse = isDatabaseInUse(upstream.database);
  if (inUse === true) throw new MigrationError(`${upstream.database} is in use: stop the upstream controller first`);
  if (!options.isDryRun) requireEmptyHome(options.home);
  const started = performance.now();
  const data = readUpstreamDatabase(upstream.database, now().toISOString());
  const readMs = performance.now() - started;
  const report: MigrationReport = { upstream, data, readMs, isLockChecked: inUse !== undefined };
  if (options.isDryRun) return report;

  mkdirSync(options.home, { recursive: true, mode: 0o700 });
  const store = await openStore({ databaseUrl: options.databaseUrl, databaseFile: join(options.home, 'ctrl.db') });
  try {
    // Checked before the home is written: a refused PostgreSQL database leaves no half-made home behind.
    await requireEmptyStore(store);
    const settingsFile = writeNewHome(options.home, upstream);
    const result = await importTables(store, data.tables, now);
    return { ...report, imported: { ...result, settingsFile } };
  } finally {
    await store.close();
  }
}
