// The embedded SQLite store: one database file in WAL mode with foreign keys on, behind the Store interface.
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
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
  const db: Db = new Kysely({ dialect: new SqliteDialect({ database }) });
  await migrate(db, migrations);

  return {
    dialect: 'sqlite',
    transaction: (work) => translateErrors(() => db.transaction().execute(work)),
    read: (work) => translateErrors(() => work(db)),
    close: () => db.destroy(),
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
