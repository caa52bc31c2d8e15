// The embedded SQLite store: one database file in WAL mode with foreign keys on, behind the Store interface.
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect, sql, type SqliteDatabase } from 'kysely';
import { registerDialect } from '../connection.js';
import { StoreError, type Db, type Store } from '../store.js';
import { migrate, type Migration } from '../migrations/migrate.js';
import type { Database as Schema } from '../schema.js';
import { LongValueListsPlugin } from './long-value-lists.js';
import { sqliteDialect } from './sqlite-dialect.js';

export interface SqliteStoreOptions {
  /** A file path, or ':memory:' for tests. */
  file: string;
  migrations: readonly Migration[];
}

/**
 * A commit checkpoints by itself only past this many WAL pages (4 KiB each: ~200 MiB). It is a bound, not the
 * usual path: SQLite's default (1,000 pages) made a large policy change pay a ~200 ms checkpoint inside its commit.
 */
const WAL_AUTOCHECKPOINT_PAGES = 50_000;
/**
 * Pages the connection keeps in memory (negative: KiB), 32 MiB instead of SQLite's 2 MiB: a large policy change
 * dirties thousands of pair-table pages, which a small cache spills to the WAL and reads back within the one
 * transaction.
 */
const CACHE_KIB = 32 * 1024;
/** How often the WAL is copied back into the database between requests, when something was committed since. */
const CHECKPOINT_INTERVAL_MS = 2_000;
/** Once a checkpoint lets the WAL start over, its file is cut back to this size, so disk use stays bounded too. */
const WAL_FILE_LIMIT_BYTES = 64 * 1024 * 1024;

/** The connection settings every opener of the controller's database uses (the bench replays them). */
export function applyConnectionSettings(database: Database.Database): void {
  database.pragma('journal_mode = WAL');
  database.pragma('foreign_keys = ON');
  database.pragma('synchronous = NORMAL');
  database.pragma('busy_timeout = 5000');
  database.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
  database.pragma(`journal_size_limit = ${WAL_FILE_LIMIT_BYTES}`);
  database.pragma(`cache_size = -${CACHE_KIB}`);
}

export async function openSqliteStore({ file, migrations }: SqliteStoreOptions): Promise<Store> {
  const database = new Database(file);
  applyConnectionSettings(database);
  // Long value lists are bound as one JSON array (long-value-lists.ts): SQLite refuses more than 32,766 variables.
  const db = new Kysely<Schema>({ dialect: new SqliteDialect({ database: withStatementCache(database) }), plugins: [new LongValueListsPlugin()] });
  registerDialect(db, sqliteDialect);
  await migrate(db as Db, migrations);

  let generation = 0;
  // SQLite's data_version moves when another connection (another process on the same file) commits anything; the
  // cluster generation row tells whether that commit changed the model or was bookkeeping (heartbeats, activity),
  // so it is read only when data_version moved. Our own commits move `generation` directly.
  // Prepared once: `database.pragma()` compiles its statement on every call, a tenth of a light request's CPU.
  const readDataVersion = database.prepare('PRAGMA data_version').pluck();
  const readClusterGeneration = database.prepare('SELECT value FROM cluster_generation WHERE id = 1').pluck();
  let dataVersion = readDataVersion.get() as number;
  let seen = readClusterGeneration.get() as number;
  // Commits of any kind, which the periodic checkpoint follows.
  let commits = 0;
  const stopCheckpoints = checkpointPeriodically(database, () => commits);
  return {
    get generation() {
      return generation;
    },
    refresh: () => {
      const now = readDataVersion.get() as number;
      if (now !== dataVersion) {
        dataVersion = now;
        const cluster = readClusterGeneration.get() as number;
        if (cluster !== seen) {
          seen = cluster;
          generation++;
        }
      }
      return undefined;
    },
    transaction: async (work, options) => {
      const bookkeeping = options?.bookkeeping === true;
      let moved = seen;
      const result = await translateErrors(() =>
        db.transaction().execute(async (tx) => {
          // BEGIN IMMEDIATE holds the write lock already; moving the row tells the other processes to look.
          if (!bookkeeping) moved = (await sql<{ value: number }>`UPDATE cluster_generation SET value = value + 1 WHERE id = 1 RETURNING value`.execute(tx)).rows[0]!.value;
          return work(tx as Db);
        }),
      );
      commits++;
      if (!bookkeeping) {
        seen = moved;
        generation++;
      }
      return result;
    },
    read: (work) => translateErrors(() => work(db as Db)),
    readSnapshot: (work) => (database.memory ? db.connection().execute((connection) => work(connection as Db)) : readOnSnapshot(file, work)),
    backup: async (target) => {
      await database.backup(target);
    },
    translateError: toStoreError,
    close: async () => {
      stopCheckpoints();
      await db.destroy();
    },
  };
}

/**
 * A second, read-only connection in one read transaction: WAL mode gives it the data as of its first read while
 * the main connection keeps committing. (An in-memory database has one connection only; there the work holds it.)
 */
async function readOnSnapshot<T>(file: string, work: (db: Db) => Promise<T>): Promise<T> {
  const database = new Database(file, { readonly: true, fileMustExist: true });
  database.pragma('busy_timeout = 5000');
  const db = new Kysely<Schema>({ dialect: new SqliteDialect({ database }) });
  registerDialect(db, sqliteDialect);
  try {
    return await db.transaction().execute((tx) => work(tx as Db));
  } finally {
    await db.destroy();
  }
}

/**
 * Runs a passive checkpoint every few seconds when transactions committed since the last one, so commits do not
 * pay for it. Never while a transaction is open on the connection (a request awaiting between statements).
 * Returns the function that stops it.
 */
function checkpointPeriodically(database: Database.Database, committed: () => number): () => void {
  if (database.memory) return () => undefined;
  let checkpointedAt = -1;
  const timer = setInterval(() => {
    const now = committed();
    if (now === checkpointedAt || database.inTransaction) return;
    try {
      database.pragma('wal_checkpoint(PASSIVE)');
      checkpointedAt = now;
    } catch {
      // Retried at the next tick; meanwhile the commit-time bound above still keeps the WAL from growing unchecked.
    }
  }, CHECKPOINT_INTERVAL_MS);
  // The timer must not keep a process alive that is otherwise done (tests, bench scripts).
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Kysely opens transactions with a plain (deferred) BEGIN; this store's are BEGIN IMMEDIATE, which takes the write
 * lock before the first read. With several processes on one file (`workers`) a deferred transaction that read and
 * then wrote could fail with SQLITE_BUSY when another committed in between; immediate ones wait their turn
 * (busy_timeout) and then see every earlier commit, so check-then-write rules and the policy-link maintenance stay
 * correct across processes as they are within one.
 */
const BEGIN = 'begin';
const BEGIN_IMMEDIATE = 'begin immediate';

/**
 * Kysely's SQLite driver prepares every statement on every call; preparing is a large share of a simple read's
 * cost, so statements are kept by their SQL text (the set of distinct statements is bounded by the code).
 */
function withStatementCache(database: Database.Database): SqliteDatabase {
  const statements = new Map<string, Database.Statement>();
  return {
    close: () => database.close(),
    prepare(sqlText) {
      const text = sqlText === BEGIN ? BEGIN_IMMEDIATE : sqlText;
      let statement = statements.get(text);
      if (!statement) {
        statement = database.prepare(text);
        if (statements.size >= 2000) statements.clear();
        statements.set(text, statement);
      }
      return statement;
    },
  };
}

async function translateErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw toStoreError(error) ?? error;
  }
}

/** Maps better-sqlite3's constraint errors ("UNIQUE constraint failed: identities.name") to StoreError. */
export function toStoreError(error: unknown): StoreError | undefined {
  if (!(error instanceof Error) || !('code' in error) || typeof error.code !== 'string') return undefined;
  const unique = /^UNIQUE constraint failed: (.+)$/.exec(error.message);
  if (error.code === 'SQLITE_CONSTRAINT_UNIQUE' && unique) {
    const qualified = unique[1]!.split(', ');
    const table = qualified[0]!.split('.')[0];
    return new StoreError('unique', table, qualified.map((c) => c.split('.')[1] ?? c), error.message);
  }
  if (error.code === 'SQLITE_CONSTRAINT_FOREIGNKEY') return new StoreError('foreignKey', undefined, [], error.message);
  if (error.code === 'SQLITE_CONSTRAINT_CHECK' || error.code === 'SQLITE_CONSTRAINT_NOTNULL') return new StoreError('check', undefined, [], error.message);
  return undefined;
}
