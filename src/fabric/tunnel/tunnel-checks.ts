// The checks every tunnel request of a router shares (common_tunnel.go, common.go), in upstream's order: the router
// still exists, its identity is a Router one, its API session, the service by name or id, the session for the
// service, and the edge router policies letting the router's identity use this router for it.
import { formatTimestamp } from '../../lib/clock.js';
import { mayUseEdgeRouter } from '../../policy/session-edge-routers.js';
import type { ApiSessionRow } from '../../store/queries/api-sessions.js';
import {
  edgeServiceById,
  edgeServiceByName,
  routerNameById,
  type EdgeService,
} from '../../store/queries/edge-sessions.js';
import type { TunnelIdentityRow } from '../../store/queries/tunnel.js';
import type { ControlChannel, FabricLogger } from '../ctrl/router-channel.js';
import { EdgeErrorCode, EdgeRequestError, type CheckedSession } from '../edge-requests.js';
import { ensureApiSession, loadTunnelIdentity, type TunnelDeps } from './tunnel-identity.js';
import { ensureTunnelSession, type SessionType } from './tunnel-sessions.js';
import type { TunnelState } from './tunnel-state.js';

/** A request's router, identity and API session. */
export interface TunnelCaller {
  routerId: string;
  identity: TunnelIdentityRow;
  apiSession: ApiSessionRow;
  /** The router did not know this API session: the answer carries it. */
  isNewApiSession: boolean;
}

/** Undefined for a router deleted while connected: its channel is closed and nothing answered (loadRouter). */
export async function tunnelCaller(
  deps: TunnelDeps,
  logger: FabricLogger,
  state: TunnelState,
  routerId: string,
  channel: ControlChannel,
  configTypes?: readonly string[],
): Promise<TunnelCaller | undefined> {
  if ((await deps.store.read((db) => routerNameById(db, routerId))) === undefined) {
    logger.error({ routerId }, 'could not find router, closing its channel');
    channel.close('router not found');
    return undefined;
  }
  const identity = await deps.store.read((db) => loadTunnelIdentity(db, routerId));
  const { apiSession, isNew } = await ensureApiSession(deps, state, identity, configTypes);
  return { routerId, identity, apiSession, isNewApiSession: isNew };
}

/** loadServiceForName / loadServiceForId. */
export async function tunnelService(deps: TunnelDeps, by: { name: string } | { id: string }): Promise<EdgeService> {
  const service = await deps.store.read((db) =>
    'name' in by ? edgeServiceByName(db, by.name) : edgeServiceById(db, by.id),
  );
  if (!service) throw new EdgeRequestError('invalid service', EdgeErrorCode.invalidService);
  return service;
}

/** verifyRouterEdgeRouterAccess: the router's identity may use this router for the service. */
export async function requireRouterAccess(deps: TunnelDeps, routerId: string, serviceId: string): Promise<void> {
  if (!(await deps.store.read((db) => mayUseEdgeRouter(db, routerId, serviceId, routerId))))
    throw new EdgeRequestError('invalid edge router for session', EdgeErrorCode.invalidEdgeRouterForSession);
}

/** The session for the service (made if needed), then the router access: what a dial or bind is checked as. */
export async function checkedTunnelSession(
  deps: TunnelDeps,
  state: TunnelState,
  caller: TunnelCaller,
  service: EdgeService,
  sessionId: string,
  type: SessionType,
): Promise<CheckedSession & { token: string }> {
  const session = await ensureTunnelSession(deps, state, caller.apiSession, service, sessionId, type);
  await requireRouterAccess(deps, caller.routerId, service.id);
  return {
    token: session.token,
    service,
    session: {
      id: session.id,
      type: session.type,
      apiSessionId: session.api_session_id,
      identityId: session.identity_id,
      identityName: caller.identity.name,
      serviceId: session.service_id,
    },
  };
}

/** Now, as stored timestamps are written. */
export const storedNow = (deps: TunnelDeps) => formatTimestamp(deps.clock());
