// Derives every derived table from its sources for a database whose sources were just written in bulk (an import
// of upstream's database): the same rows the integrity scan's repair would write, from the same declarations
// (derived-tables.ts), but inserted a few hundred per statement in one transaction instead of checked and written
// one by one. Differences other than missing rows (a stored column to correct) are applied as the repair does.
import { formatTimestamp, type Clock } from '../lib/clock.js';
import type { Store } from '../store/store.js';
import { ChunkPacer, walkChunks, type Row } from './chunks.js';
import { derivedTables } from './derived-tables.js';
import { columnsOf, compare, storageOf } from './integrity-scan.js';
import { loadScanContext } from './scan-context.js';

/** Rows per INSERT: well below SQLite's and PostgreSQL's limits on bound parameters. */
const ROWS_PER_INSERT = 500;

/** Returns the rows written per derived table. */
export async function deriveFreshTables(store: Store, clock: Clock): Promise<Map<string, number>> {
  const written = new Map<string, number>();
  await store.transaction(async (tx) => {
    // Nothing else runs on a database being imported: chunks may be large.
    const pacer = new ChunkPacer(50);
    const context = await loadScanContext(tx, pacer);
    const at = formatTimestamp(clock());
    for (const table of derivedTables) {
      const storage = storageOf(table);
      const columns = columnsOf(table);
      const inserted: Row[] = [];
      let changed = 0;
      await walkChunks(tx, table.source, pacer, async (chunk) => {
        const stored = await storage.inRange(tx, chunk);
        for (const { stored: current, expected } of compare(
          table,
          table.expected(chunk.rows, stored, context),
          stored,
        )) {
          changed++;
          const key = Object.fromEntries(table.key.map((column) => [column, (current ?? expected)[column]]));
          if (!expected) await storage.delete(tx, key);
          else if (!current) inserted.push(Object.fromEntries(columns.map((column) => [column, expected[column]])));
          else await storage.update(tx, Object.fromEntries((table.values ?? []).map((c) => [c, expected[c]])), key);
        }
      });
      for (let from = 0; from < inserted.length; from += ROWS_PER_INSERT)
        await storage.insertMany(tx, inserted.slice(from, from + ROWS_PER_INSERT));
      if (inserted.length > 0) await table.afterRepair?.(tx, inserted, at);
      if (changed > 0) written.set(table.table, changed);
    }
  });
  return written;
}
