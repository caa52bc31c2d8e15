// Policy advice: whether an identity may dial or bind a service and over which edge routers, read from the policy
// engine's pair tables (ziti `model/policy_advisor.go` AnalyzeServiceReachability; posture is not considered).
import { edgeRouterReach, servicePair } from '../store/queries/service-access.js';
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

export async function analyzeServiceReachability(
  db: Db,
  identityId: string,
  serviceId: string,
): Promise<ServiceReachability> {
  const pair = await servicePair(db, identityId, serviceId);
  const reach = await edgeRouterReach(db, identityId, serviceId);
  return {
    isDialAllowed: Number(pair?.dial ?? 0) > 0,
    isBindAllowed: Number(pair?.bind ?? 0) > 0,
    identityRouterCount: reach.identityRouters,
    serviceRouterCount: reach.serviceRouters,
    commonRouters: reach.common,
  };
}
