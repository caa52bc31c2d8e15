// The integrity scan: compares every derived table with what its source records imply, reading one consistent
// snapshot in small chunks, and with `fix` repairs each difference that is still as the snapshot saw it.
import type { Clock } from '../lib/clock.js';
import { formatTimestamp } from '../lib/clock.js';
import {
  deleteMatching,
  insertManyRows,
  insertRow as insertStoredRow,
  rowsInRange,
  selectMatching,
  updateMatching,
} from '../store/queries/table-rows.js';
import { StoreError, type Db, type Store } from '../store/store.js';
import { ChunkPacer, walkChunks, type Chunk, type Row } from './chunks.js';
import { derivedTables, type DerivedStorage, type DerivedTable } from './derived-tables.js';
import { loadScanContext } from './scan-context.js';
import { mustAt } from '../lib/collections.js';

/** One derived row that differs from what its sources imply: missing (no `stored`), unexpected (no `expected`) or wrong. */
/** A row stored but not expected, expected but not stored, or both with other values: never neither. */
export type Difference =
  { table: DerivedTable; stored: Row; expected?: Row } | { table: DerivedTable; stored?: undefined; expected: Row };

export interface ScanOptions {
  fix: boolean;
  clock: Clock;
  /** Told about every difference, and whether it was repaired. */
  report(difference: Difference, isFixed: boolean): void;
  /** Runs once, before the first repair (upstream snapshots the database first). */
  beforeRepair?(): Promise<void>;
  /** Told when each table is done. */
  progress?(table: string, differences: number, ms: number): void;
  signal?: AbortSignal;
  tables?: readonly DerivedTable[];
  /** Differences a fixing pass collects before it stops to repair them (default 10,000). */
  pendingLimit?: number;
}

/** Differences a fixing pass collects before it stops to repair them and resumes on a new snapshot. */
const PENDING_LIMIT = 10_000;
/** Repairs per write transaction: each transaction stays short. */
const REPAIRS_PER_TRANSACTION = 200;

export async function scanIntegrity(store: Store, options: ScanOptions): Promise<void> {
  const tables = options.tables ?? derivedTables;
  let resume: { index: number; after: string | undefined } | undefined = { index: 0, after: undefined };
  let hasSnapshotted = false;
  while (resume) {
    const from: { index: number; after: string | undefined } = resume;
    const pending: Difference[] = [];
    resume = await store.readSnapshot((db) => scanPass(db, tables, from, options, pending));
    if (pending.length === 0) continue;
    if (!hasSnapshotted) await options.beforeRepair?.();
    hasSnapshotted = true;
    await repair(store, pending, options);
  }
}

/** Walks the tables from `from` on one snapshot; returns where to resume when it stopped to let repairs run. */
async function scanPass(
  db: Db,
  tables: readonly DerivedTable[],
  from: { index: number; after: string | undefined },
  options: ScanOptions,
  pending: Difference[],
): Promise<{ index: number; after: string | undefined } | undefined> {
  const pacer = new ChunkPacer(4, options.signal);
  const context = await loadScanContext(db, pacer);
  for (let index = from.index; index < tables.length; index++) {
    const table = mustAt(tables, index);
    const started = performance.now();
    let found = 0;
    const stoppedAfter = await walkChunks(
      db,
      table.source,
      pacer,
      async (chunk) => {
        const stored = await readStored(db, table, chunk);
        const differences = compare(table, table.expected(chunk.rows, stored, context), stored);
        found += differences.length;
        if (options.fix) pending.push(...differences);
        else for (const difference of differences) options.report(difference, false);
        return pending.length < (options.pendingLimit ?? PENDING_LIMIT);
      },
      index === from.index ? from.after : undefined,
    );
    options.progress?.(table.table, found, performance.now() - started);
    if (stoppedAfter !== undefined) return { index, after: stoppedAfter };
    // Requests run between tables too (a small table is one chunk): one arriving while the scan runs sees it running.
    await pacer.pause();
  }
  return undefined;
}

export const columnsOf = (table: DerivedTable) => [...table.key, ...(table.values ?? [])];
const keyOf = (table: DerivedTable, row: Row) => JSON.stringify(table.key.map((column) => row[column]));

async function readStored(db: Db, table: DerivedTable, chunk: Chunk): Promise<Row[]> {
  return storageOf(table).inRange(db, chunk);
}

/** The table's own storage, or its rows as they are stored, by the compared columns. */
export function storageOf(table: DerivedTable): DerivedStorage {
  if (table.storage) return table.storage;
  const columns = columnsOf(table);
  return {
    inRange: (db, range) => rowsInRange(db, table.table, columns, table.key[0], range, table.storedFilter),
    select: (db, match) => selectMatching(db, table.table, match, columns),
    insert: (tx, row) => insertStoredRow(tx, table.table, row),
    insertMany: (tx, rows) => insertManyRows(tx, table.table, rows),
    update: (tx, values, match) => updateMatching(tx, table.table, values, match),
    delete: (tx, match) => deleteMatching(tx, table.table, match),
  };
}

export function compare(table: DerivedTable, expected: Row[], stored: Row[]): Difference[] {
  const storedByKey = new Map(stored.map((row) => [keyOf(table, row), row]));
  const differences: Difference[] = [];
  for (const row of expected) {
    const key = keyOf(table, row);
    const current = storedByKey.get(key);
    storedByKey.delete(key);
    if (!current) differences.push({ table, expected: row });
    else if (!sameValues(table, current, row)) differences.push({ table, stored: current, expected: row });
  }
  for (const row of storedByKey.values()) differences.push({ table, stored: row });
  return differences;
}

function sameValues(table: DerivedTable, a: Row | undefined, b: Row | undefined): boolean {
  if (!a || !b) return a === b;
  return (table.values ?? []).every((column) => a[column] === b[column]);
}

/** `identity_services: identity_id=x service_id=y has dial=2 bind=0, should have dial=1 bind=0`. */
export function describeDifference({ table, stored, expected }: Difference): string {
  const keyText = table.key.map((column) => `${column}=${String((stored ?? expected)[column])}`).join(' ');
  const values = (row: Row) => (table.values ?? []).map((column) => `${column}=${String(row[column])}`).join(' ');
  const suffix = (row: Row) => (table.values?.length ? ` (${values(row)})` : '');
  if (!stored) return `${table.table}: missing ${keyText}${suffix(expected)}`;
  if (!expected) return `${table.table}: unexpected ${keyText}${suffix(stored)}`;
  return `${table.table}: ${keyText} has ${values(stored)}, should have ${values(expected)}`;
}

/**
 * Applies the differences in short write transactions. A row that changed since the snapshot was read is left
 * alone (a write meanwhile decided it; the next scan judges it again); one whose repair the database refuses
 * (a row it references is gone meanwhile) is reported as not fixed.
 */
async function repair(store: Store, differences: Difference[], options: ScanOptions): Promise<void> {
  for (let start = 0; start < differences.length; start += REPAIRS_PER_TRANSACTION) {
    options.signal?.throwIfAborted();
    const batch = differences.slice(start, start + REPAIRS_PER_TRANSACTION);
    const outcomes = await repairInTransaction(store, batch, options.clock);
    batch.forEach((difference, index) => options.report(difference, mustAt(outcomes, index)));
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** One refused repair must not cost the rest of its batch: on a constraint error, each is retried alone. */
async function repairInTransaction(store: Store, batch: Difference[], clock: Clock): Promise<boolean[]> {
  try {
    return await store.transaction((tx) => repairBatch(tx, batch, clock));
  } catch (error) {
    if (!(error instanceof StoreError)) throw error;
    if (batch.length === 1) return [false];
    const outcomes: boolean[] = [];
    for (const difference of batch) outcomes.push(...(await repairInTransaction(store, [difference], clock)));
    return outcomes;
  }
}

async function repairBatch(tx: Db, batch: Difference[], clock: Clock): Promise<boolean[]> {
  const outcomes: boolean[] = [];
  const repaired = new Map<DerivedTable, Row[]>();
  for (const difference of batch) {
    const { table, stored, expected } = difference;
    const key = stored ?? expected;
    const current = await readRow(tx, table, key);
    if (!sameValues(table, current, stored)) {
      outcomes.push(false);
      continue;
    }
    const storage = storageOf(table);
    if (!expected) await storage.delete(tx, keyOfRow(table, key));
    else if (!stored) await storage.insert(tx, pick(expected, columnsOf(table)));
    else await storage.update(tx, pick(expected, table.values ?? []), keyOfRow(table, key));
    outcomes.push(true);
    repaired.set(table, [...(repaired.get(table) ?? []), key]);
  }
  const at = formatTimestamp(clock());
  for (const [table, rows] of repaired) await table.afterRepair?.(tx, rows, at);
  return outcomes;
}

const pick = (row: Row, columns: readonly string[]): Row =>
  Object.fromEntries(columns.map((column) => [column, row[column]]));

/** The row's key columns: which stored row a difference is about. */
const keyOfRow = (table: DerivedTable, row: Row): Row => pick(row, table.key);

async function readRow(tx: Db, table: DerivedTable, key: Row): Promise<Row | undefined> {
  return (await storageOf(table).select(tx, keyOfRow(table, key)))[0];
}

/** Every difference a check finds, described: for tests and tools that want the whole answer at once. */
export async function integrityDifferences(store: Store, clock: Clock): Promise<string[]> {
  const found: string[] = [];
  await scanIntegrity(store, { fix: false, clock, report: (difference) => found.push(describeDifference(difference)) });
  return found;
}
