// Writes what read-upstream-database.ts read into an empty, migrated store in one transaction, then has the
// integrity scan derive every policy link, set table and fingerprint column from it, as the policy code would.
import { systemClock, type Clock } from '../lib/clock.js';
import { scanIntegrity } from '../integrity/integrity-scan.js';
import { firstNetworkRows } from '../store/queries/upstream-import.js';
import type { Store } from '../store/store.js';
import type { KindRows } from './rows/base-row.js';

/** Rows per INSERT: well below SQLite's and PostgreSQL's limits on bound parameters. */
const ROWS_PER_INSERT = 100;

export class ImportTargetError extends Error {}

export interface ImportResult {
  /** Rows written per kind. */
  written: Map<string, number>;
  /** Derived rows the integrity scan added (the policy links and sets), per table. */
  derived: Map<string, number>;
  ms: number;
}

/** Refuses a store that has ever held a network: importing into one would mix two. */
export async function requireEmptyStore(store: Store): Promise<void> {
  const found = await store.read(firstNetworkRows);
  if (found) throw new ImportTargetError(`the target database is not empty (${found.table}: ${found.count} rows)`);
}

export async function importTables(
  store: Store,
  kinds: readonly KindRows[],
  clock: Clock = systemClock,
): Promise<ImportResult> {
  const started = performance.now();
  await requireEmptyStore(store);
  const written = new Map<string, number>();
  await store.transaction(async (tx) => {
    for (const rows of kinds) {
      for (let from = 0; from < rows.rows.length; from += ROWS_PER_INSERT)
        await rows.insert(tx, from, from + ROWS_PER_INSERT);
      written.set(rows.kind, (written.get(rows.kind) ?? 0) + rows.rows.length);
    }
  });
  const derived = new Map<string, number>();
  await scanIntegrity(store, {
    fix: true,
    clock,
    report: (difference, isFixed) => {
      if (isFixed) derived.set(difference.table.table, (derived.get(difference.table.table) ?? 0) + 1);
    },
  });
  return { written, derived, ms: performance.now() - started };
}
