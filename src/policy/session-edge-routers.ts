// The edge routers a session may use: those both the identity's edge router policies and the service's service
// edge router policies grant (ziti `model/edge_router_manager.go` ListForIdentityAndService), with the live state
// every client-facing router view shares, so a router's URLs read the same wherever an SDK meets them.
import { sql } from 'kysely';
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

interface RouterRow {
  id: string;
  name: string;
  cost: number | null;
  no_traversal: number | null;
  disabled: number | null;
}

/** `sessionEdgeRouter` without `urls`: the shape of `GET /services/{id}/edge-routers`. */
export type CommonEdgeRouter = Record<string, unknown>;

/**
 * Up to 25 routers in both sets, ordered as upstream's `SORT BY connected DESC` leaves them when none is
 * connected: by id. Online state is not a condition (nor is it upstream's).
 */
export async function sharedEdgeRouters(db: Db, identityId: string, serviceId: string): Promise<CommonEdgeRouter[]> {
  // A plain statement: session creation runs this on every request, and the query builder's compile step would
  // cost several times the query itself.
  const { rows } = await sql<RouterRow>`SELECT r.id AS id, r.name AS name, r.cost AS cost, r.no_traversal AS no_traversal, r.disabled AS disabled
    FROM identity_edge_routers i
    JOIN service_edge_routers s ON s.edge_router_id = i.edge_router_id AND s.service_id = ${serviceId}
    JOIN routers r ON r.id = i.edge_router_id
    WHERE i.identity_id = ${identityId} ORDER BY r.id LIMIT ${SESSION_EDGE_ROUTERS}`.execute(db);
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
