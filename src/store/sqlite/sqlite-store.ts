// The embedded SQLite store: one database file in WAL mode with foreign keys on, behind the Store interface.
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect, type SqliteDatabase } from 'kysely';
import { StoreError, type Db, type Store } from '../store.js';
import { migrate, type Migration } from '../migrations/migrate.js';

export interface SqliteStoreOptions {
  /** A file path, or ':memory:' for tests. */
  file: string;
  migrations: readonly Migration[];
}

export async function openSqliteStore({ file, migrations }: SqliteStoreOptions): Promise<Store> {
  const database = new Database(file);
  database.pragma('journal_mode = WAL');
  database.pragma('foreign_keys = ON');
  database.pragma('synchronous = NORMAL');
  database.pragma('busy_timeout = 5000');
  const db: Db = new Kysely({ dialect: new SqliteDialect({ database: withStatementCache(database) }) });
  await migrate(db, migrations);

  let generation = 0;
  return {
    dialect: 'sqlite',
    get generation() {
      return generation;
    },
    transaction: async (work) => {
      const result = await translateErrors(() => db.transaction().execute(work));
      generation++;
      return result;
    },
    read: (work) => translateErrors(() => work(db)),
    close: () => db.destroy(),
  };
}

/**
 * Kysely's SQLite driver prepares every statement on every call; preparing is a large share of a simple read's
 * cost, so statements are kept by their SQL text (the set of distinct statements is bounded by the code).
 */
function withStatementCache(database: Database.Database): SqliteDatabase {
  const statements = new Map<string, Database.Statement>();
  return {
    close: () => database.close(),
    prepare(text) {
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
  if (error.code === 'SQLITE_CONSTRAINT_CHECK') return new StoreError('check', undefined, [], error.message);
  return undefined;
}
