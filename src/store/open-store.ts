// Opens the store the settings choose: PostgreSQL when a database URL is given, else the SQLite file.
import { migrations } from './migrations/index.js';
import { openPostgresStore } from './postgres/postgres-store.js';
import { openSqliteStore } from './sqlite/sqlite-store.js';
import type { Store } from './store.js';

export interface OpenStoreOptions {
  /** `postgres://…`; undefined: SQLite. */
  databaseUrl: string | undefined;
  /** The SQLite file (or ':memory:'), used when there is no database URL. */
  databaseFile: string;
  /** PostgreSQL's connections at most (default 10). */
  poolSize?: number;
  /** A controller's instance: on PostgreSQL, held as its liveness lock while the store is open (instance-lock.ts). */
  instance?: { id: string; onLockError: (error: unknown) => void };
}

/** Migrated to the latest schema this build knows before it is returned. */
export function openStore({ databaseUrl, databaseFile, poolSize, instance }: OpenStoreOptions): Promise<Store> {
  return databaseUrl
    ? openPostgresStore({ url: databaseUrl, migrations, poolSize, instance })
    : openSqliteStore({ file: databaseFile, migrations });
}
