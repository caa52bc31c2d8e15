// The store the bench seeds and reads beside the controller (which must be stopped while seeding): the same
// store the controller opens from its home, through the store's own query modules.
import { join } from 'node:path';
import { openStore } from '../src/store/open-store.js';
import type { Store } from '../src/store/store.js';

/** Opens the home's store, runs `work`, and closes it again. */
export async function withBenchStore<T>(home: string, work: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore({ databaseUrl: undefined, databaseFile: join(home, 'ctrl.db') });
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
