// Applies the numbered migrations in order, each in its own transaction, and records the version reached.
import { sql } from 'kysely';
import type { Db } from '../store.js';

export interface Migration {
  version: number;
  name: string;
  /**
   * Plain SQL statements, written in the subset SQLite and PostgreSQL share but for the column words the
   * PostgreSQL store translates (src/store/postgres/translate-migration.ts); where the two cannot share one, a
   * statement per database (none: nothing to do there).
   */
  statements: readonly MigrationStatement[];
}

export type MigrationStatement = string | { sqlite?: string; postgres?: string };

/** SQLite runs the shared statements as written. */
const forSqlite = (statement: MigrationStatement): string | undefined =>
  typeof statement === 'string' ? statement : statement.sqlite;

/** `translate` turns each statement into the store's dialect (undefined: nothing to run there). */
export async function migrate(
  db: Db,
  migrations: readonly Migration[],
  translate: (statement: MigrationStatement) => string | undefined = forSqlite,
): Promise<number> {
  const bookkeeping = translate(
    'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)',
  );
  if (bookkeeping === undefined) throw new Error('the store skips the schema_migrations table it records versions in');
  await sql.raw(bookkeeping).execute(db);
  const applied = await db.selectFrom('schema_migrations').select('version').execute();
  const done = new Set(applied.map((row) => Number(row.version)));
  let current = Math.max(0, ...done);
  for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
    if (done.has(migration.version)) continue;
    await db.transaction().execute(async (tx) => {
      // Another process on the same SQLite file may have applied it since the read above: write transactions are
      // taken one at a time (BEGIN IMMEDIATE), so looking again here decides it. (PostgreSQL migrates under a lock.)
      if (
        await tx
          .selectFrom('schema_migrations')
          .select('version')
          .where('version', '=', migration.version)
          .executeTakeFirst()
      )
        return;
      for (const statement of migration.statements) {
        const translated = translate(statement);
        if (translated !== undefined) await sql.raw(translated).execute(tx);
      }
      await tx
        .insertInto('schema_migrations')
        .values({ version: migration.version, name: migration.name, applied_at: new Date().toISOString() })
        .execute();
    });
    current = migration.version;
  }
  for (const statement of CHANGE_LOG) {
    const translated = translate(statement);
    if (translated !== undefined) await sql.raw(translated).execute(db);
  }
  return current;
}

/**
 * The change log (changes.ts): one row per commit that changed what caches may hold, with the change keys it moved,
 * so every process on the database sees at its next request which of its kept answers are stale (Store.refresh).
 * It is the stores' own machinery, like schema_migrations, rather than a numbered migration: no store can write
 * without it, whatever migrations it was asked to apply. Every statement may run again at any start.
 *
 * Rows are only ever inserted (commits running at once queue for no row lock) and pruned after a few minutes;
 * `cluster_changes_pruned` says up to where, so a process that last looked before that drops everything instead.
 * On SQLite (one writer) rows are ordered by `seq`; on PostgreSQL, where commits end in any order, by the writing
 * transaction's id, which a reader compares with the snapshot of its previous look (pg_visible_in_snapshot).
 */
const CHANGE_LOG: readonly MigrationStatement[] = [
  {
    sqlite:
      'CREATE TABLE IF NOT EXISTS cluster_changes (seq INTEGER PRIMARY KEY AUTOINCREMENT, keys TEXT NOT NULL, at TEXT NOT NULL)',
    postgres:
      'CREATE TABLE IF NOT EXISTS cluster_changes (xid xid8 NOT NULL, keys TEXT NOT NULL, at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp())',
  },
  { postgres: 'CREATE INDEX IF NOT EXISTS cluster_changes_xid ON cluster_changes (xid)' },
  {
    sqlite:
      'CREATE TABLE IF NOT EXISTS cluster_changes_pruned (id INTEGER PRIMARY KEY CHECK (id = 1), through INTEGER NOT NULL)',
    postgres:
      'CREATE TABLE IF NOT EXISTS cluster_changes_pruned (id BIGINT PRIMARY KEY CHECK (id = 1), through xid8 NOT NULL)',
  },
  {
    sqlite: 'INSERT INTO cluster_changes_pruned (id, through) VALUES (1, 0) ON CONFLICT (id) DO NOTHING',
    postgres: "INSERT INTO cluster_changes_pruned (id, through) VALUES (1, '0') ON CONFLICT (id) DO NOTHING",
  },
  // PostgreSQL: how many prunes removed rows. `through` alone cannot tell a reader whether anything it had not seen
  // went: a transaction older than `through` still running anywhere in the cluster (a backup's) holds every later
  // snapshot's xmin below it, so every look would count as lost and drop every kept answer.
  { postgres: 'ALTER TABLE cluster_changes_pruned ADD COLUMN IF NOT EXISTS prunes BIGINT NOT NULL DEFAULT 0' },
];

/** How long the change log keeps a commit's row; a process that did not look for longer drops all it kept. */
export const CHANGE_LOG_KEPT_SECONDS = 300;
/** A store prunes the change log once every this many of its own logged commits. */
export const CHANGE_LOG_PRUNE_EVERY = 1_000;

/** The versions of the migrations applied to the database. */
export async function appliedMigrations(db: Db): Promise<number[]> {
  const { rows } = await sql<{ version: number }>`SELECT version FROM schema_migrations`.execute(db);
  return rows.map((row) => Number(row.version));
}
