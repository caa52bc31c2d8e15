// The embedded SQLite store: one database file in WAL mode with foreign keys on, behind the Store interface.
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect, sql, type SqliteDatabase, type SqliteStatement } from 'kysely';
import { mustAt } from '../../lib/collections.js';
import { LruMap } from '../../lib/lru-map.js';
import { registerDialect } from '../connection.js';
import { StoreError, type Db, type Store } from '../store.js';
import { Changes, commitKeys, noteWrites, writtenTables } from '../changes.js';
import type { ChangeKey } from '../store.js';
import { CHANGE_LOG_KEPT_SECONDS, CHANGE_LOG_PRUNE_EVERY, migrate, type Migration } from '../migrations/migrate.js';
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
  const statementTexts: StatementTexts = { wrap: (_text, statement) => statement };
  const db = new Kysely<Schema>({
    dialect: new SqliteDialect({ database: withStatementCache(database, statementTexts) }),
    plugins: [new LongValueListsPlugin()],
  });
  registerDialect(db, sqliteDialect);
  await migrate(db, migrations);

  const changes = new Changes();
  // SQLite's data_version moves when another connection (another process on the same file) commits anything; the
  // change log (migrate.ts CHANGE_LOG) then tells what those commits changed, so it is read only when data_version
  // moved. Our own commits move their keys directly.
  // Prepared once: `database.pragma()` compiles its statement on every call, a tenth of a light request's CPU.
  const readDataVersion = database.prepare('PRAGMA data_version').pluck();
  const readChangeLog = database.prepare<[number], { seq: number; keys: string }>(
    'SELECT seq, keys FROM cluster_changes WHERE seq > ? ORDER BY seq',
  );
  const readPrunedThrough = database
    .prepare<[], number>('SELECT through FROM cluster_changes_pruned WHERE id = 1')
    .pluck();
  const lastSeq = database.prepare<[], number | null>('SELECT max(seq) FROM cluster_changes').pluck();
  let dataVersion = readDataVersion.get();
  let seen = lastSeq.get() ?? 0;
  // Commits of any kind, which the periodic checkpoint follows.
  let commits = 0;
  let logged = 0;
  const stopCheckpoints = checkpointPeriodically(database, () => commits);
  // The statements of the write transaction running now (one at a time: the connection is the driver's one).
  let writing: Set<string> | undefined;
  statementTexts.wrap = (text, statement) => {
    const into = writing;
    const tables = into ? writtenTables(text) : [];
    if (!into || tables.length === 0) return statement;
    // Looks at what the statement changed as it runs (the driver runs it right after preparing it).
    return {
      reader: statement.reader,
      all: (parameters: readonly unknown[]) => {
        const rows = statement.all(parameters);
        noteWrites(tables, rows.length, into);
        return rows;
      },
      run: (parameters: readonly unknown[]) => {
        const result = statement.run(parameters);
        noteWrites(tables, Number(result.changes), into);
        return result;
      },
      iterate: (parameters: readonly unknown[]) => {
        noteWrites(tables, undefined, into);
        return statement.iterate(parameters);
      },
    };
  };
  return {
    changes,
    refresh: () => {
      const now = readDataVersion.get();
      if (now !== dataVersion) {
        dataVersion = now;
        const pruned = readPrunedThrough.get() ?? 0;
        if (pruned > seen) {
          // Rows this process never read are gone: everything counts as moved, and the look goes on from there.
          changes.movedAll();
          seen = pruned;
        }
        for (const { seq, keys } of readChangeLog.all(seen)) {
          seen = seq;
          changes.moved(parseKeys(keys));
        }
      }
      return Promise.resolve();
    },
    transaction: async (work, options) => {
      let keys: ChangeKey[] = [];
      let wrote: ReadonlySet<string> = new Set();
      const result = await translateErrors(() =>
        db.transaction().execute(async (tx) => {
          writing = new Set();
          let result: Awaited<ReturnType<typeof work>>;
          try {
            result = await work(tx);
          } finally {
            keys = commitKeys(writing, options);
            wrote = writing;
            writing = undefined;
          }
          if (keys.length > 0) {
            // BEGIN IMMEDIATE holds the write lock: the log's order is the commits' order.
            const { rows } = await sql<{
              seq: number;
            }>`INSERT INTO cluster_changes (keys, at) VALUES (${JSON.stringify(keys)}, ${new Date().toISOString()}) RETURNING seq`.execute(
              tx,
            );
            // Nobody committed since this process last looked: its own row needs no reading back.
            if (rows[0] && rows[0].seq === seen + 1) seen = rows[0].seq;
            if (++logged % CHANGE_LOG_PRUNE_EVERY === 0) await pruneChangeLog(tx);
          }
          return result;
        }),
      );
      commits++;
      changes.moved(keys);
      changes.committedHere(wrote);
      return result;
    },
    read: (work) => translateErrors(() => work(db)),
    readSnapshot: (work) =>
      database.memory ? db.connection().execute((connection) => work(connection)) : readOnSnapshot(file, work),
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
    return await db.transaction().execute((tx) => work(tx));
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
function withStatementCache(database: Database.Database, texts: StatementTexts): SqliteDatabase {
  const statements = new LruMap<string, Database.Statement>(2000);
  return {
    close: () => database.close(),
    prepare(sqlText) {
      const text = sqlText === BEGIN ? BEGIN_IMMEDIATE : sqlText;
      let statement = statements.get(text);
      if (!statement) {
        statement = database.prepare(text);
        statements.set(text, statement);
      }
      return texts.wrap(text, statement);
    },
  };
}

/** What the driver runs instead of each prepared statement (it prepares each one as it runs it). */
interface StatementTexts {
  wrap: (text: string, statement: SqliteStatement) => SqliteStatement;
}

const parseKeys = (text: string): string[] => {
  const keys: unknown = JSON.parse(text);
  return Array.isArray(keys) ? keys.filter((key): key is string => typeof key === 'string') : [];
};

/** Drops the change log's old rows and records up to which `seq` it did, inside a write transaction. */
async function pruneChangeLog(tx: Db): Promise<void> {
  const before = new Date(Date.now() - CHANGE_LOG_KEPT_SECONDS * 1000).toISOString();
  const { rows } = await sql<{
    seq: number | null;
  }>`SELECT max(seq) AS seq FROM cluster_changes WHERE at < ${before}`.execute(tx);
  const through = rows[0]?.seq;
  if (through === null || through === undefined) return;
  await sql`DELETE FROM cluster_changes WHERE seq <= ${through}`.execute(tx);
  await sql`UPDATE cluster_changes_pruned SET through = ${through} WHERE id = 1 AND through < ${through}`.execute(tx);
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
  const uniqueColumns = /^UNIQUE constraint failed: (.+)$/.exec(error.message)?.[1];
  if (error.code === 'SQLITE_CONSTRAINT_UNIQUE' && uniqueColumns !== undefined) {
    const qualified = uniqueColumns.split(', ');
    const table = mustAt(qualified, 0).split('.')[0];
    return new StoreError(
      'unique',
      table,
      qualified.map((c) => c.split('.')[1] ?? c),
      error.message,
    );
  }
  if (error.code === 'SQLITE_CONSTRAINT_FOREIGNKEY') return new StoreError('foreignKey', undefined, [], error.message);
  if (error.code === 'SQLITE_CONSTRAINT_CHECK' || error.code === 'SQLITE_CONSTRAINT_NOTNULL')
    return new StoreError('check', undefined, [], error.message);
  return undefined;
}
