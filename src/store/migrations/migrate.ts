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
const forSqlite = (statement: MigrationStatement): string | undefined => (typeof statement === 'string' ? statement : statement.sqlite);

/** `translate` turns each statement into the store's dialect (undefined: nothing to run there). */
export async function migrate(db: Db, migrations: readonly Migration[], translate: (statement: MigrationStatement) => string | undefined = forSqlite): Promise<number> {
  await sql.raw(translate('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)')!).execute(db);
  const applied = await db.selectFrom('schema_migrations').select('version').execute();
  const done = new Set(applied.map((row) => Number(row.version)));
  let current = Math.max(0, ...done);
  for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
    if (done.has(migration.version)) continue;
    await db.transaction().execute(async (tx) => {
      // Another process on the same SQLite file may have applied it since the read above: write transactions are
      // taken one at a time (BEGIN IMMEDIATE), so looking again here decides it. (PostgreSQL migrates under a lock.)
      if (await tx.selectFrom('schema_migrations').select('version').where('version', '=', migration.version).executeTakeFirst()) return;
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
  for (const statement of CLUSTER_GENERATION) await sql.raw(translate(statement)!).execute(db);
  return current;
}

/**
 * The cluster generation: moved by every write transaction that changes the model, so every process on the database
 * sees at its next request that its caches are stale (Store.refresh). It is the stores' own machinery, like
 * schema_migrations, rather than a numbered migration: no store can write without it, whatever migrations it was
 * asked to apply. Every statement may run again at any start.
 *
 * On PostgreSQL the generation is the sum of GENERATION_SHARDS rows instead (issue 26): writes that run at once move
 * different rows, so their commits do not queue for one row lock (SQLite, with one writer, keeps the one row).
 */
export const GENERATION_SHARDS = 16;
const CLUSTER_GENERATION = [
  'CREATE TABLE IF NOT EXISTS cluster_generation (id BIGINT PRIMARY KEY CHECK (id = 1), value BIGINT NOT NULL)',
  'INSERT INTO cluster_generation (id, value) VALUES (1, 0) ON CONFLICT (id) DO NOTHING',
  'CREATE TABLE IF NOT EXISTS cluster_generation_shards (id BIGINT PRIMARY KEY, value BIGINT NOT NULL)',
  `INSERT INTO cluster_generation_shards (id, value) VALUES ${Array.from({ length: GENERATION_SHARDS }, (_, id) => `(${id}, 0)`).join(', ')} ON CONFLICT (id) DO NOTHING`,
];

/** The versions of the migrations applied to the database. */
export async function appliedMigrations(db: Db): Promise<number[]> {
  const { rows } = await sql<{ version: number }>`SELECT version FROM schema_migrations`.execute(db);
  return rows.map((row) => Number(row.version));
}
