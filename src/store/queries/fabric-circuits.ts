// The circuits every process lists (migration 022): one row per live circuit, written by the process that owns it
// (bookkeeping: no cache holds them), read by any process, only those of instances still beating. Path and tags are
// JSON text the owner wrote; times RFC3339 text.
import type { Selectable } from 'kysely';
import { isStorableText, typed } from '../connection.js';
import { inTextList, preparedQuery } from '../prepared.js';
import type { FabricCircuitsTable } from '../schema.js';
import type { Db } from '../store.js';

export type FabricCircuitRow = Selectable<FabricCircuitsTable>;

/**
 * Whether a circuit's client id can be in a row: a router's fabric CircuitRequest names it as it likes, and one that
 * PostgreSQL cannot store would fail every write of the batch it joins, again and again.
 */
export function isRecordableClientId(clientId: string): boolean {
  return isStorableText(clientId);
}

/** Rows per INSERT: 11 values each, well under either database's limit of parameters in one statement. */
const ROWS_AT_ONCE = 500;

/** Circuits created or moved: a new row, or a known one's path and update time replaced (its owner never changes). */
export async function putFabricCircuits(tx: Db, rows: readonly FabricCircuitRow[]): Promise<void> {
  for (let start = 0; start < rows.length; start += ROWS_AT_ONCE) {
    await typed(tx)
      .insertInto('fabric_circuits')
      .values(rows.slice(start, start + ROWS_AT_ONCE))
      .onConflict((conflict) =>
        conflict.column('id').doUpdateSet((eb) => ({
          router_ids: eb.ref('excluded.router_ids'),
          link_ids: eb.ref('excluded.link_ids'),
          updated_at: eb.ref('excluded.updated_at'),
        })),
      )
      .execute();
  }
}

const deleteCircuits = preparedQuery((q, ids: readonly string[]) =>
  q.deleteFrom('fabric_circuits').where('id', 'in', inTextList(q, ids)),
);

export async function deleteFabricCircuits(tx: Db, ids: readonly string[]): Promise<void> {
  if (ids.length > 0) await deleteCircuits(tx, ids);
}

/** Every row of one instance (it stops: its circuits go with it, as upstream's go with its controller). */
export async function deleteFabricCircuitsOf(tx: Db, instanceId: string): Promise<void> {
  await typed(tx).deleteFrom('fabric_circuits').where('instance_id', '=', instanceId).execute();
}

/** The instances seen since `since` (system/instance-heartbeat.ts beats): only their circuits are alive. */
const liveInstances = (db: Db, since: string) =>
  typed(db).selectFrom('controller_instances').select('id').where('last_seen_at', '>=', since);

/** The circuits of instances seen since `since`, oldest first. */
export function liveFabricCircuits(db: Db, since: string): Promise<FabricCircuitRow[]> {
  return typed(db)
    .selectFrom('fabric_circuits')
    .selectAll()
    .where('instance_id', 'in', liveInstances(db, since))
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** One circuit, if its instance was seen since `since`. */
export function liveFabricCircuit(db: Db, id: string, since: string): Promise<FabricCircuitRow | undefined> {
  return typed(db)
    .selectFrom('fabric_circuits')
    .selectAll()
    .where('id', '=', id)
    .where('instance_id', 'in', liveInstances(db, since))
    .executeTakeFirst();
}

/** The instance owning each of these circuits, where one seen since `since` other than `except` does. */
export async function fabricCircuitOwners(
  db: Db,
  circuitIds: readonly string[],
  since: string,
  except: string,
): Promise<Map<string, string>> {
  if (circuitIds.length === 0) return new Map();
  const rows = await typed(db)
    .selectFrom('fabric_circuits')
    .select(['id', 'instance_id'])
    .where('id', 'in', circuitIds)
    .where('instance_id', '!=', except)
    .where('instance_id', 'in', liveInstances(db, since))
    .execute();
  return new Map(rows.map((row) => [row.id, row.instance_id]));
}

/** Rows of instances not in `liveInstanceIds` (they stopped beating; their circuits went with them). */
export async function sweepFabricCircuits(tx: Db, liveInstanceIds: readonly string[]): Promise<void> {
  if (liveInstanceIds.length === 0) return;
  await typed(tx).deleteFrom('fabric_circuits').where('instance_id', 'not in', liveInstanceIds).execute();
}
