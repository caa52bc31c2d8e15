// The edge routers a session may use: those both the identity's edge router policies and the service's service
// edge router policies grant (ziti `model/edge_router_manager.go` ListForIdentityAndService), with the live state
// every router view shares, read from the store (router presence, migration 018) so any worker or instance answers
// alike and a router's URLs read the same wherever an SDK meets them.
import { routerPresence, type RouterPresenceRow } from '../store/queries/router-presence.js';
import { sharedEdgeRouterRows, type SharedRouterRow } from '../store/queries/service-access.js';
import type { Db } from '../store/store.js';
import { mustGet } from '../lib/collections.js';
import { parseJsonValue } from '../lib/json-value.js';

export interface EdgeRouterLiveState {
  hostname: string;
  isOnline: boolean;
  /** Protocol → URL (`tls` → `tls://host:port`) as the router reports its listeners when it connects. */
  supportedProtocols: Record<string, string>;
  syncStatus: string;
  versionInfo: { arch: string; buildDate: string; os: string; revision: string; version: string };
  /** The link listeners of its last hello (the fabric API's `listenerAddresses`), when it has connected. */
  listenerAddresses?: Array<{ address: string; protocol: string }>;
}

/** What upstream shows of a router that never connected (env/sync.go NewRouterStatusValues). */
const neverConnected: EdgeRouterLiveState = {
  hostname: '',
  isOnline: false,
  supportedProtocols: {},
  syncStatus: 'SYNC_UNKNOWN',
  versionInfo: { arch: '', buildDate: '', os: '', revision: '', version: '' },
};

function parsedObject<T>(text: string | null, fallback: T): T {
  if (text === null) return fallback;
  try {
    const value = parseJsonValue(text);
    // Written by this controller only (router presence), as the object T the fallback is.
    return value !== null && typeof value === 'object' ? (value as T) : fallback;
  } catch {
    // Written by this controller only; a row that does not parse reads as nothing stored.
    return fallback;
  }
}

/** A stored row as the API shows it: online while an instance holds the channel; the rest as last reported. */
function liveState(row: RouterPresenceRow | undefined): EdgeRouterLiveState {
  if (!row) return neverConnected;
  return {
    hostname: row.hostname ?? neverConnected.hostname,
    isOnline: row.instance_id !== null,
    supportedProtocols: parsedObject(row.supported_protocols, neverConnected.supportedProtocols),
    syncStatus: row.sync_status ?? neverConnected.syncStatus,
    versionInfo: { ...neverConnected.versionInfo, ...parsedObject(row.version_info, neverConnected.versionInfo) },
    ...(row.link_listeners === null ? {} : { listenerAddresses: parsedObject(row.link_listeners, []) }),
  };
}

/** Live state of these routers, one read for all. */
export async function edgeRouterLiveStates(
  db: Db,
  routerIds: readonly string[],
): Promise<Map<string, EdgeRouterLiveState>> {
  const rows = await routerPresence(db, routerIds);
  return new Map(routerIds.map((id) => [id, liveState(rows.get(id))]));
}

/** Upstream hands out at most this many routers per session, connected ones first. */
export const SESSION_EDGE_ROUTERS = 25;

/** `sessionEdgeRouter` without `urls`: the shape of `GET /services/{id}/edge-routers`. */
export type CommonEdgeRouter = Record<string, unknown>;

/** Up to 25 routers in both sets, connected ones first, then by id (upstream's `SORT BY connected DESC`). */
export async function sharedEdgeRouters(db: Db, identityId: string, serviceId: string): Promise<CommonEdgeRouter[]> {
  const rows = await sharedEdgeRouterRows(db, identityId, serviceId, SESSION_EDGE_ROUTERS);
  const states = await edgeRouterLiveStates(
    db,
    rows.map((row) => row.id),
  );
  return rows.map((row) => commonEdgeRouter(row, mustGet(states, row.id)));
}

/** sharedEdgeRouters from the rows it reads: each router with its presence row (read with other things). */
export function commonEdgeRouters(
  routers: readonly { router: SharedRouterRow; presence: RouterPresenceRow | undefined }[],
): CommonEdgeRouter[] {
  return routers.map(({ router, presence }) => commonEdgeRouter(router, liveState(presence)));
}

function commonEdgeRouter(row: SharedRouterRow, state: EdgeRouterLiveState): CommonEdgeRouter {
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
}

/**
 * Whether the identity may reach the service through this edge router (ziti IsAccessToEdgeRouterAllowed): the rule
 * that lists a session's `edgeRouters` above, asked of one router when a router asks to bind or dial for the session.
 */
export { isEdgeRouterShared as mayUseEdgeRouter } from '../store/queries/service-access.js';
