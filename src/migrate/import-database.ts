// Writes what read-upstream-database.ts read into an empty, migrated store in one transaction, then derives every
// policy link, set table and fingerprint column from it with the integrity scan's declarations, and has the scan
// check the result.
import { systemClock, type Clock } from '../lib/clock.js';
import { deriveFreshTables } from '../integrity/derive-fresh.js';
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
  /** Derived rows written (the policy links and sets), per table. */
  derived: Map<string, number>;
  /** What the integrity scan still repaired after the derivation: 0 unless something is amiss. */
  repairedAfter: number;
  ms: number;
  /** Where the time went: writing upstream's rows, deriving, the integrity scan's check. */
  phases: { insertMs: number; deriveMs: number; checkMs: number };
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
  const inserted = performance.now();
  const derived = await deriveFreshTables(store, clock);
  const derivedAt = performance.now();
  // Then the integrity scan, as the proof: it finds nothing left to repair (and would repair it if it did).
  let repairedAfter = 0;
  await scanIntegrity(store, {
    fix: true,
    clock,
    report: (_difference, isFixed) => void (repairedAfter += isFixed ? 1 : 0),
  });
  const ms = performance.now() - started;
  const round = Math.round;
  const phases = {
    insertMs: round(inserted - started),
    deriveMs: round(derivedAt - inserted),
    checkMs: round(performance.now() - derivedAt),
  };
  return { written, derived, repairedAfter, ms, phases };
}
