// The store the store tier runs on: PostgreSQL (a fresh schema per store, dropped on close) when
// ZITI_TEST_DATABASE_URL is set, as `npm run test:postgres` sets it; else SQLite in a temporary file. The same
// tests run on both.
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrations } from '../../src/store/migrations/index.js';
import type { Migration } from '../../src/store/migrations/migrate.js';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.js';
import { createScratchSchema } from '../../src/store/postgres/scratch-schema.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';

export const storeUnderTest: 'postgres' | 'sqlite' = process.env.ZITI_TEST_DATABASE_URL ? 'postgres' : 'sqlite';

/** An empty database the tier may open stores on (several at once: instances starting together), then removes. */
export interface EmptyDatabase {
  open(list?: readonly Migration[]): Promise<Store>;
  remove(): Promise<void>;
}

export async function emptyDatabase(): Promise<EmptyDatabase> {
  const url = process.env.ZITI_TEST_DATABASE_URL;
  if (url) {
    const scratch = await createScratchSchema(url, 'ziti_store_test');
    return {
      open: (list = migrations) => openPostgresStore({ url: scratch.url, migrations: list, poolSize: 4 }),
      remove: () => scratch.drop(),
    };
  }
  const folder = mkdtempSync(join(tmpdir(), 'ziti-store-test-'));
  const file = join(folder, 'ctrl.db');
  return {
    open: (list = migrations) => openSqliteStore({ file, migrations: list }),
    remove: () => rm(folder, { recursive: true, force: true }),
  };
}

/** A migrated store on its own empty database; closing it removes the database. */
export async function openTestStore(): Promise<Store> {
  const database = await emptyDatabase();
  const store = await database.open();
  return {
    ...store,
    changes: store.changes,
    close: async () => {
      await store.close();
      await database.remove();
    },
  };
}
