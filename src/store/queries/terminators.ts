// Terminators as routers make and remove them (issue 23): the rows of edge terminators, a service's terminators
// for a dial, and their removal by id. The REST side reads and writes the same rows through the entity kit.
import type { Selectable } from 'kysely';
import { typed } from '../connection.js';
import { inTextList, preparedQuery } from '../prepared.js';
import type { TerminatorsTable } from '../schema.js';
import type { Db } from '../store.js';

export type TerminatorRow = Selectable<TerminatorsTable>;

export async function terminatorById(db: Db, id: string): Promise<TerminatorRow | undefined> {
  return typed(db).selectFrom('terminators').selectAll().where('id', '=', id).executeTakeFirst();
}

const selectTerminatorsOfService = preparedQuery((q, serviceId: string) =>
  q.selectFrom('terminators').selectAll().where('service_id', '=', serviceId).orderBy('created_at').orderBy('id'),
);

/** The service's terminators, oldest first (a stable order for strategies that break ties by position). */
export async function terminatorsOfService(db: Db, serviceId: string): Promise<TerminatorRow[]> {
  return selectTerminatorsOfService(db, serviceId);
}

/** The service's other terminators sharing an instance id (upstream's identity group). */
export async function terminatorsWithInstance(
  db: Db,
  serviceId: string,
  instanceId: string,
  exceptId: string,
): Promise<TerminatorRow[]> {
  return typed(db)
    .selectFrom('terminators')
    .selectAll()
    .where('service_id', '=', serviceId)
    .where('instance_id', '=', instanceId)
    .where('id', '!=', exceptId)
    .execute();
}

export async function insertTerminator(tx: Db, row: TerminatorRow): Promise<void> {
  await typed(tx).insertInto('terminators').values(row).execute();
}

export async function setTerminatorCostAndPrecedence(
  tx: Db,
  id: string,
  cost: number,
  precedence: string,
  at: string,
): Promise<void> {
  await typed(tx).updateTable('terminators').set({ cost, precedence, updated_at: at }).where('id', '=', id).execute();
}

/** Deletes those of `ids` that exist (and, given `routerId`, that the router holds); answers the rows deleted. */
export async function deleteTerminators(tx: Db, ids: readonly string[], routerId?: string): Promise<TerminatorRow[]> {
  if (ids.length === 0) return [];
  let query = typed(tx).deleteFrom('terminators').where('id', 'in', inTextList(tx, ids));
  if (routerId !== undefined) query = query.where('router_id', '=', routerId);
  return query.returningAll().execute();
}

export async function countTerminators(db: Db): Promise<number> {
  const row = await typed(db)
    .selectFrom('terminators')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** The router's terminators created before `before`. */
export async function terminatorsOfRouterBefore(db: Db, routerId: string, before: string): Promise<TerminatorRow[]> {
  return typed(db)
    .selectFrom('terminators')
    .selectAll()
    .where('router_id', '=', routerId)
    .where('created_at', '<', before)
    .execute();
}

/** Every terminator of the router (its presence events name each). */
export async function terminatorsOfRouter(db: Db, routerId: string): Promise<TerminatorRow[]> {
  return typed(db).selectFrom('terminators').selectAll().where('router_id', '=', routerId).orderBy('id').execute();
}

/**
 * A router quiesced (upstream ApplyQuiesce): each of its terminators not failed already keeps its precedence in
 * `saved_precedence` and fails, so new circuits avoid the router while its open ones finish; how many changed.
 */
export async function quiesceRouterTerminators(tx: Db, routerId: string, at: string): Promise<number> {
  const [result] = await typed(tx)
    .updateTable('terminators')
    .set((eb) => ({ saved_precedence: eb.ref('precedence'), precedence: 'failed', updated_at: at }))
    .where('router_id', '=', routerId)
    .where('precedence', '<>', 'failed')
    .execute();
  return Number(result?.numUpdatedRows ?? 0);
}

/** A router dequiesced (upstream ApplyDequiesce): failed terminators with a saved precedence get it back. */
export async function dequiesceRouterTerminators(tx: Db, routerId: string, at: string): Promise<number> {
  const [result] = await typed(tx)
    .updateTable('terminators')
    .set((eb) => ({
      precedence: eb.fn.coalesce('saved_precedence', eb.ref('precedence')),
      saved_precedence: null,
      updated_at: at,
    }))
    .where('router_id', '=', routerId)
    .where('precedence', '=', 'failed')
    .where('saved_precedence', 'is not', null)
    .execute();
  return Number(result?.numUpdatedRows ?? 0);
}

/** These terminators with their service's and router's names (null when gone), in the order of `ids`. */
export async function terminatorsWithNames(
  db: Db,
  ids: readonly string[],
): Promise<(TerminatorRow & { service_name: string | null; router_name: string | null })[]> {
  if (ids.length === 0) return [];
  const rows = await typed(db)
    .selectFrom('terminators')
    .leftJoin('services', 'services.id', 'terminators.service_id')
    .leftJoin('routers', 'routers.id', 'terminators.router_id')
    .selectAll('terminators')
    .select(['services.name as service_name', 'routers.name as router_name'])
    .where('terminators.id', 'in', inTextList(db, ids))
    .execute();
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/** The router's terminators of one binding (`validate router-sdk-terminators` compares the router's edge ones). */
export async function terminatorsOfRouterWithBinding(
  db: Db,
  routerId: string,
  binding: string,
): Promise<TerminatorRow[]> {
  return typed(db)
    .selectFrom('terminators')
    .selectAll()
    .where('router_id', '=', routerId)
    .where('binding', '=', binding)
    .execute();
}
