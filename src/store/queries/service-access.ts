// What an identity may do with services, read from the policy engine's pair tables: one pair, a page's pairs, the
// edge routers both sides are granted (sessions, policy advice).
import { sql } from 'kysely';
import { typed } from '../connection.js';
import { inTextList, limitOf, preparedQuery } from '../prepared.js';
import type { Db } from '../store.js';

export interface PairCounts {
  dial: number;
  bind: number;
}

const selectService = preparedQuery((q, serviceId: string) => q.selectFrom('services').select('id').where('id', '=', serviceId));

export async function serviceExists(db: Db, serviceId: string): Promise<boolean> {
  return (await selectService(db, serviceId)).length > 0;
}

const selectPair = preparedQuery((q, identityId: string, serviceId: string) =>
  q.selectFrom('identity_services').select(['dial', 'bind']).where('identity_id', '=', identityId).where('service_id', '=', serviceId),
);

/** How many policies grant the identity Dial and Bind on the service; undefined when none does. */
export async function servicePair(db: Db, identityId: string, serviceId: string): Promise<PairCounts | undefined> {
  const [pair] = await selectPair(db, identityId, serviceId);
  return pair;
}

const selectServiceWithPair = preparedQuery(
  (_q, identityId: string, serviceId: string) => sql<{ name: string; dial: number | null; bind: number | null }>`SELECT s.name AS name, p.dial AS dial, p.bind AS bind
    FROM services s LEFT JOIN identity_services p ON p.service_id = s.id AND p.identity_id = ${identityId}
    WHERE s.id = ${serviceId}`,
);

/** The service's name with the identity's pair counts (null when no policy grants it); undefined when the service does not exist. */
export async function serviceWithPair(db: Db, identityId: string, serviceId: string): Promise<{ name: string; dial: number | null; bind: number | null } | undefined> {
  const [row] = await selectServiceWithPair(db, identityId, serviceId);
  return row;
}

const selectPairs = preparedQuery((q, identityId: string, serviceIds: readonly string[]) =>
  q.selectFrom('identity_services').select(['service_id', 'dial', 'bind']).where('identity_id', '=', identityId).where('service_id', 'in', inTextList(q, serviceIds)),
);

/** The identity's pair counts for each of these services that some policy grants. */
export async function servicePairs(db: Db, identityId: string, serviceIds: readonly string[]): Promise<Map<string, PairCounts>> {
  if (serviceIds.length === 0) return new Map();
  const rows = await selectPairs(db, identityId, serviceIds);
  return new Map(rows.map((row) => [row.service_id, { dial: row.dial, bind: row.bind }]));
}

export interface SharedRouterRow {
  id: string;
  name: string;
  cost: number | null;
  no_traversal: number | null;
  disabled: number | null;
}

/** Up to `limit` edge routers both the identity's edge router policies and the service's service edge router policies grant, by id. */
export const sharedEdgeRouterRows: (db: Db, identityId: string, serviceId: string, limit: number) => Promise<SharedRouterRow[]> = preparedQuery(
  (_q, identityId: string, serviceId: string, limit: number) => sql<SharedRouterRow>`SELECT r.id AS id, r.name AS name, r.cost AS cost, r.no_traversal AS no_traversal, r.disabled AS disabled
    FROM identity_edge_routers i
    JOIN service_edge_routers s ON s.edge_router_id = i.edge_router_id AND s.service_id = ${serviceId}
    JOIN routers r ON r.id = i.edge_router_id
    WHERE i.identity_id = ${identityId} ORDER BY r.id LIMIT ${limitOf(limit)}`,
);

/** How many edge routers the identity's policies give it, how many the service's give it, and those in both, by name. */
export async function edgeRouterReach(db: Db, identityId: string, serviceId: string): Promise<{ identityRouters: number; serviceRouters: number; common: { id: string; name: string }[] }> {
  const identityRouters = await typed(db).selectFrom('identity_edge_routers').select((eb) => eb.fn.countAll<number>().as('n')).where('identity_id', '=', identityId).executeTakeFirst();
  const serviceRouters = await typed(db).selectFrom('service_edge_routers').select((eb) => eb.fn.countAll<number>().as('n')).where('service_id', '=', serviceId).executeTakeFirst();
  const common = await typed(db)
    .selectFrom('identity_edge_routers as i')
    .innerJoin('service_edge_routers as s', 's.edge_router_id', 'i.edge_router_id')
    .innerJoin('routers as r', 'r.id', 'i.edge_router_id')
    .select(['r.id', 'r.name'])
    .where('i.identity_id', '=', identityId)
    .where('s.service_id', '=', serviceId)
    .orderBy('r.name')
    .execute();
  return { identityRouters: Number(identityRouters?.n ?? 0), serviceRouters: Number(serviceRouters?.n ?? 0), common };
}
