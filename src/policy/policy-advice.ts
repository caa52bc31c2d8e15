// Policy advice: whether an identity may dial or bind a service and over which edge routers, read from the policy
// engine's pair tables (ziti `model/policy_advisor.go` AnalyzeServiceReachability; posture is not considered).
import type { Db } from '../store/store.js';

export interface ServiceReachability {
  isDialAllowed: boolean;
  isBindAllowed: boolean;
  /** Distinct edge routers the identity's edge router policies give it. */
  identityRouterCount: number;
  /** Distinct edge routers the service's service edge router policies give it. */
  serviceRouterCount: number;
  /** Edge routers in both sets, by name. */
  commonRouters: { id: string; name: string }[];
}

export async function analyzeServiceReachability(db: Db, identityId: string, serviceId: string): Promise<ServiceReachability> {
  const pair = await db.selectFrom('identity_services').select(['dial', 'bind']).where('identity_id', '=', identityId).where('service_id', '=', serviceId).executeTakeFirst();
  const count = async (table: string, column: string, id: string) => {
    const row = await db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).where(column, '=', id).executeTakeFirst();
    return Number(row?.n ?? 0);
  };
  const common = await db
    .selectFrom('identity_edge_routers as i')
    .innerJoin('service_edge_routers as s', 's.edge_router_id', 'i.edge_router_id')
    .innerJoin('routers as r', 'r.id', 'i.edge_router_id')
    .select(['r.id', 'r.name'])
    .where('i.identity_id', '=', identityId)
    .where('s.service_id', '=', serviceId)
    .orderBy('r.name')
    .execute();
  return {
    isDialAllowed: Number(pair?.dial ?? 0) > 0,
    isBindAllowed: Number(pair?.bind ?? 0) > 0,
    identityRouterCount: await count('identity_edge_routers', 'identity_id', identityId),
    serviceRouterCount: await count('service_edge_routers', 'service_id', serviceId),
    commonRouters: common.map((row) => ({ id: row.id as string, name: row.name as string })),
  };
}
