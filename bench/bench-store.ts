// The store the bench seeds and reads beside the controller (which must be stopped while seeding): the same
// store the controller opens from its home, through the store's own query modules. With BENCH_STORE=postgres each
// home's data is a fresh schema in a database of its own the run creates on BENCH_DATABASE_URL's server (its role
// needs CREATEDB), dropped when the run ends.
import { join } from 'node:path';
import { openStore } from '../src/store/open-store.js';
import {
  createScratchDatabase,
  createScratchSchema,
  type ScratchSchema,
} from '../src/store/postgres/scratch-schema.js';
import type { Store } from '../src/store/store.js';
import { onCleanup } from './cleanup.js';
import { settings } from './settings.js';

const schemas = new Map<string, Promise<ScratchSchema>>();
let runDatabase: Promise<ScratchSchema> | undefined;

/** The run's own database, made on first use: nothing else on the server shares its tables, locks or statistics. */
function databaseOfRun(url: string): Promise<ScratchSchema> {
  if (!runDatabase) {
    const database = createScratchDatabase(url, 'ziti_bench');
    runDatabase = database;
    onCleanup(async () => (await database).drop());
  }
  return runDatabase;
}

/** The database URL a controller on `home` is started with; undefined: the SQLite file in the home. */
export async function databaseUrlFor(home: string): Promise<string | undefined> {
  if (settings.store !== 'postgres') return undefined;
  // Read here rather than kept in the settings, which the results file records: the URL may hold a password.
  const url = process.env.BENCH_DATABASE_URL || process.env.ZITI_TEST_DATABASE_URL;
  if (!url) throw new Error('BENCH_STORE=postgres needs BENCH_DATABASE_URL (or ZITI_TEST_DATABASE_URL)');
  let schema = schemas.get(home);
  if (!schema) {
    const created = databaseOfRun(url).then((database) => createScratchSchema(database.url, 'ziti_bench'));
    schemas.set(home, created);
    onCleanup(async () => (await created).drop());
    schema = created;
  }
  return (await schema).url;
}

/** Makes `home` use the data of `shared` (a second instance on the same database). */
export function shareStore(home: string, shared: string): void {
  const schema = schemas.get(shared);
  if (schema) schemas.set(home, schema);
}

/** Opens the home's store, runs `work`, and closes it again. */
export async function withBenchStore<T>(home: string, work: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore({ databaseUrl: await databaseUrlFor(home), databaseFile: join(home, 'ctrl.db') });
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/** Rows per insert statement: one statement binds them as one parameter, and a few thousand keep it small. */
export const ROWS_PER_INSERT = 2_000;

/** `rows` in slices of ROWS_PER_INSERT. */
export function* slices<T>(rows: readonly T[], size = ROWS_PER_INSERT): Generator<T[]> {
  for (let from = 0; from < rows.length; from += size) yield rows.slice(from, from + size);
}
