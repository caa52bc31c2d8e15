// What an identity may do with services, read from the policy engine's pair tables: one pair, a page's pairs, the
// edge routers both sides are granted (sessions, policy advice).
import { sql, type RawBuilder } from 'kysely';
import { dialectOf, typed } from '../connection.js';
import type { ListQuery } from '../filter/filter-types.js';
import { listQuerySql } from '../filter/list-query.js';
import { inTextList, limitOf, preparedQuery, ShapeCache } from '../prepared.js';
import type { Db } from '../store.js';
import type { Row } from './entities.js';
import { LISTED } from './scopes.js';

export interface PairCounts {
  dial: number;
  bind: number;
}

const selectService = preparedQuery((q, serviceId: string) =>
  q.selectFrom('services').select('id').where('id', '=', serviceId),
);

export async function serviceExists(db: Db, serviceId: string): Promise<boolean> {
  return (await selectService(db, serviceId)).length > 0;
}

// The pair tables hold the entities' integer keys (`seq`): each query finds the keys of the ids it was given by
// their unique indexes first, then reads the pairs by their primary key.
const selectPair = preparedQuery(
  (_q, identityId: string, serviceId: string) => sql<PairCounts>`SELECT p.dial AS dial, p.bind AS bind
    FROM identities i JOIN services s ON s.id = ${serviceId} JOIN identity_services p ON p.identity_seq = i.seq AND p.service_seq = s.seq
    WHERE i.id = ${identityId}`,
);

/** How many policies grant the identity Dial and Bind on the service; undefined when none does. */
export async function servicePair(db: Db, identityId: string, serviceId: string): Promise<PairCounts | undefined> {
  const [pair] = await selectPair(db, identityId, serviceId);
  return pair;
}

const selectPairs = preparedQuery(
  (q, identityId: string, serviceIds: readonly string[]) => sql<
    PairCounts & { service_id: string }
  >`SELECT s.id AS service_id, p.dial AS dial, p.bind AS bind
    FROM identities i JOIN identity_services p ON p.identity_seq = i.seq JOIN services s ON s.seq = p.service_seq
    WHERE i.id = ${identityId} AND s.id IN ${inTextList(q, serviceIds)}`,
);

/** The identity's pair counts for each of these services that some policy grants. */
export async function servicePairs(
  db: Db,
  identityId: string,
  serviceIds: readonly string[],
): Promise<Map<string, PairCounts>> {
  if (serviceIds.length === 0) return new Map();
  const rows = await selectPairs(db, identityId, serviceIds);
  return new Map(rows.map((row) => [row.service_id, { dial: row.dial, bind: row.bind }]));
}

/** A service row of an identity's list, with the identity's pair counts on it. */
export interface GrantedServiceRow extends Row {
  id: string;
  pair_dial: number;
  pair_bind: number;
}

/** Page and count shapes of identities' service lists, by filter and sort. */
const listShapes = new ShapeCache(500);

/** `FROM` and the identity condition of an identity's service list: driven from its pairs (the primary key), never the service table. */
const grantedServices = (
  identityId: unknown,
) => sql`FROM identity_services p JOIN services ${sql.raw(LISTED)} ON ${sql.ref(`${LISTED}.seq`)} = p.service_seq
  WHERE p.identity_seq = (SELECT seq FROM identities WHERE id = ${identityId})`;

/**
 * One page of the services some policy grants the identity, filtered and sorted as any entity list (`t` is the
 * listed table), each with its pair counts, so the page needs no second look at the pairs. Read from the
 * identity's pairs, which hold only its services, rather than every service tested against them.
 */
export async function grantedServicePage(
  db: Db,
  identityId: string,
  query: ListQuery,
): Promise<{ rows: GrantedServiceRow[]; totalCount: number }> {
  const limit = query.limit === 'none' ? dialectOf(db).unlimited : query.limit;
  const rows = await listShapes.run<GrantedServiceRow>(
    db,
    `page ${query.shape}`,
    [identityId, limit, query.offset],
    (q, [identity, pageLimit, offset]) => {
      const { where, orderBy } = listQuerySql(query, LISTED, dialectOf(q).filter);
      return sql<GrantedServiceRow>`SELECT ${sql.ref(LISTED)}.*, p.dial AS pair_dial, p.bind AS pair_bind ${grantedServices(identity)} AND ${where}
      ORDER BY ${sql.join(orderBy)} LIMIT ${limitOf(pageLimit)} OFFSET ${offset}`;
    },
  );
  // As every list: a page that is not full ends the matches, so it tells the count.
  const isFull = query.limit !== 'none' && rows.length >= query.limit;
  if (!isFull && (rows.length > 0 || query.offset === 0)) return { rows, totalCount: query.offset + rows.length };
  const [counted] = await listShapes.run<{ n: number }>(db, `count ${query.shape}`, [identityId], (q, [identity]) => {
    // Unfiltered, every pair is one service (a service's pairs go with it), so the pairs alone are counted.
    if (query.predicate.kind === 'constant' && query.predicate.value) {
      return sql<{
        n: number;
      }>`SELECT count(*) AS n FROM identity_services WHERE identity_seq = (SELECT seq FROM identities WHERE id = ${identity})`;
    }
    const { where } = listQuerySql(query, LISTED, dialectOf(q).filter);
    return sql<{ n: number }>`SELECT count(*) AS n ${grantedServices(identity)} AND ${where}`;
  });
  return { rows, totalCount: Number(counted?.n ?? 0) };
}

export interface SharedRouterRow {
  id: string;
  name: string;
  cost: number | null;
  no_traversal: number | null;
  disabled: number | null;
}

/** Up to `limit` edge routers both the identity's edge router policies and the service's service edge router policies grant, connected ones (migration 018) first, then by id. */
/**
 * Up to `limit` edge routers both the identity's and the service's policies give, connected ones first (`offline`
 * 0), then by id: the one statement of this rule, which the session create's read embeds too.
 */
export const sharedEdgeRoutersSql = (identityId: string, serviceId: string, limit: number) =>
  sql`SELECT r.id AS id, r.name AS name, r.cost AS cost, r.no_traversal AS no_traversal, r.disabled AS disabled,
      CASE WHEN EXISTS (SELECT 1 FROM live_router_presence p WHERE p.router_id = r.id AND p.instance_id IS NOT NULL) THEN 0 ELSE 1 END AS offline
    FROM identity_edge_routers i
    JOIN service_edge_routers s ON s.edge_router_seq = i.edge_router_seq AND s.service_seq = (SELECT seq FROM services WHERE id = ${serviceId})
    JOIN routers r ON r.seq = i.edge_router_seq
    WHERE i.identity_seq = (SELECT seq FROM identities WHERE id = ${identityId})
    ORDER BY offline, r.id LIMIT ${limitOf(limit)}`;

export const sharedEdgeRouterRows: (
  db: Db,
  identityId: string,
  serviceId: string,
  limit: number,
) => Promise<SharedRouterRow[]> = preparedQuery(
  (_q, identityId: string, serviceId: string, limit: number) =>
    sql<SharedRouterRow>`SELECT id, name, cost, no_traversal, disabled FROM (${sharedEdgeRoutersSql(identityId, serviceId, limit)}) shared
    ORDER BY offline, id`,
);

/** How many edge routers the identity's policies give it, how many the service's give it, and those in both, by name. */
export async function edgeRouterReach(
  db: Db,
  identityId: string,
  serviceId: string,
): Promise<{ identityRouters: number; serviceRouters: number; common: { id: string; name: string }[] }> {
  const q = typed(db);
  const identityKey = q.selectFrom('identities').select('seq').where('id', '=', identityId);
  const serviceKey = q.selectFrom('services').select('seq').where('id', '=', serviceId);
  const identityRouters = await q
    .selectFrom('identity_edge_routers')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('identity_seq', '=', identityKey)
    .executeTakeFirst();
  const serviceRouters = await q
    .selectFrom('service_edge_routers')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('service_seq', '=', serviceKey)
    .executeTakeFirst();
  const common = await q
    .selectFrom('identity_edge_routers as i')
    .innerJoin('service_edge_routers as s', 's.edge_router_seq', 'i.edge_router_seq')
    .innerJoin('routers as r', 'r.seq', 'i.edge_router_seq')
    .select(['r.id', 'r.name'])
    .where('i.identity_seq', '=', identityKey)
    .where('s.service_seq', '=', serviceKey)
    .orderBy('r.name')
    .execute();
  return { identityRouters: Number(identityRouters?.n ?? 0), serviceRouters: Number(serviceRouters?.n ?? 0), common };
}

/**
 * Whether both the identity's edge router policies and the service's service edge router policies grant the router,
 * as an SQL condition on the identity's and the service's `seq` (the one text of this rule: isEdgeRouterShared, and
 * the router's session checks read with the session, edge-sessions.ts).
 */
export function edgeRouterSharedSql(identitySeq: unknown, serviceSeq: unknown, routerId: unknown): RawBuilder<boolean> {
  return sql<boolean>`EXISTS (SELECT 1 FROM routers r
    JOIN identity_edge_routers ie ON ie.edge_router_seq = r.seq AND ie.identity_seq = ${identitySeq}
    JOIN service_edge_routers se ON se.edge_router_seq = r.seq AND se.service_seq = ${serviceSeq}
    WHERE r.id = ${routerId})`;
}

const selectSharedRouter = preparedQuery(
  (_q, identityId: string, serviceId: string, routerId: string) =>
    sql<{ shared: number }>`SELECT CASE WHEN ${edgeRouterSharedSql(
      sql`(SELECT seq FROM identities WHERE id = ${identityId})`,
      sql`(SELECT seq FROM services WHERE id = ${serviceId})`,
      routerId,
    )} THEN 1 ELSE 0 END AS shared`,
);

/** Whether both the identity's edge router policies and the service's service edge router policies grant the router. */
export async function isEdgeRouterShared(
  db: Db,
  identityId: string,
  serviceId: string,
  routerId: string,
): Promise<boolean> {
  const [row] = await selectSharedRouter(db, identityId, serviceId, routerId);
  return Number(row?.shared) === 1;
}
