// The record of entity changes (migration 023): written in the changing transaction, pruned past the retention.
// States and source are JSON text; times RFC3339 text.
import type { Insertable } from 'kysely';
import { typed } from '../connection.js';
import { insertRow } from './entities.js';
import type { EntityChangesTable } from '../schema.js';
import type { Db } from '../store.js';

export type EntityChangeInsert = Insertable<EntityChangesTable>;

export async function insertEntityChanges(tx: Db, rows: readonly EntityChangeInsert[]): Promise<void> {
  // One row at a time (a change is one row): a prepared shape per set of columns, not a statement built each time.
  for (const row of rows) await insertRow(tx, 'entity_changes', row);
}

/** Drops the changes made before `before`; answers how many. */
export async function pruneEntityChanges(tx: Db, before: string): Promise<number> {
  const result = await typed(tx).deleteFrom('entity_changes').where('created_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
