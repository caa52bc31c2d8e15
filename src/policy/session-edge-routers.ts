// The edge routers a session may use: those both the identity's edge router policies and the service's service
// edge router policies grant (ziti `model/edge_router_manager.go` ListForIdentityAndService), with the live state
// every client-facing router view shares, so a router's URLs read the same wherever an SDK meets them.
import { sharedEdgeRouterRows } from '../store/queries/service-access.js';
import type { Db } from '../store/store.js';

export interface EdgeRouterLiveState {
  hostname: string;
  isOnline: boolean;
  /** Protocol → URL (`tls` → `tls://host:port`) as the router reports its listeners when it connects. */
  supportedProtocols: Record<string, string>;
  syncStatus: string;
}

/**
 * What a router reports over its control channel, which this controller never has (see README): every router
 * reads as upstream shows one that never connected.
 */
export function edgeRouterLiveState(_routerId: string): EdgeRouterLiveState {
  return { hostname: '', isOnline: false, supportedProtocols: {}, syncStatus: 'SYNC_UNKNOWN' };
}

/** Upstream hands out at most this many routers per session, connected ones first. */
const SESSION_EDGE_ROUTERS = 25;

/** `sessionEdgeRouter` without `urls`: the shape of `GET /services/{id}/edge-routers`. */
export type CommonEdgeRouter = Record<string, unknown>;

/**
 * Up to 25 routers in both sets, ordered as upstream's `SORT BY connected DESC` leaves them when none is
 * connected: by id. Online state is not a condition (nor is it upstream's).
 */
export async function sharedEdgeRouters(db: Db, identityId: string, serviceId: string): Promise<CommonEdgeRouter[]> {
  const rows = await sharedEdgeRouterRows(db, identityId, serviceId, SESSION_EDGE_ROUTERS);
  return rows.map((row) => {
    const state = edgeRouterLiveState(row.id);
    return {
      cost: row.cost ?? 0,
      disabled: row.disabled === 1,
      hostname: state.hostname,
      isOnline: state.isOnline,
      name: row.name,
      noTraversal: row.no_traversal === 1,
      supportedProtocols: state.supportedProtocols,
      syncStatus: state.syncStatus,
    };
  });
}

/**
 * Whether the identity may reach the service through this edge router (ziti IsAccessToEdgeRouterAllowed): the rule
 * that lists a session's `edgeRouters` above, asked of one router when a router asks to bind or dial for the session.
 */
export { isEdgeRouterShared as mayUseEdgeRouter } from '../store/queries/service-access.js';
