// The router's own identity and API session, as upstream v1.1.8 keeps them for its embedded tunneler
// (controller/handler_edge_ctrl/common_tunnel.go loadIdentity, ensureApiSession, getCreateApiSessionResponse): the
// identity is the Router-type one a tunneler-enabled edge router brings (entities/shared/tunneler-entities.ts); its
// API session is made like any other, so the edge sync tells the routers of it, and kept per control channel.
import { create } from '@bufbuild/protobuf';
import type { EntityDeps } from '../../app-deps.js';
import { insertApiSession } from '../../auth/api-sessions.js';
import { parseJsonValue } from '../../lib/json-value.js';
import { isJsonObject } from '../../lib/object-path.js';
import { resolveConfigTypes } from '../../policy/config-expansion.js';
import { apiSessionById, type ApiSessionRow } from '../../store/queries/api-sessions.js';
import { updateClientInfo } from '../../auth/client-info.js';
import { newestApiSessionOf, tunnelIdentity, type TunnelIdentityRow } from '../../store/queries/tunnel.js';
import { writeAreas, type Db } from '../../store/store.js';
import { formatTimestamp } from '../../lib/clock.js';
import {
  CreateApiSessionResponseSchema,
  TerminatorPrecedence,
  type CreateApiSessionRequest,
  type CreateApiSessionResponse,
} from '../messages/gen/edge_ctrl_pb.js';
import { EdgeErrorCode, EdgeRequestError } from '../edge-requests.js';
import type { TunnelState } from './tunnel-state.js';

export type TunnelDeps = EntityDeps & {
  /** Marks API sessions active (ApiSessions.recordActivity): each tunnel request is activity of the router's. */
  recordActivity: (apiSessionIds: Iterable<string>) => void;
};

/** common_tunnel.go loadIdentity: the identity with the router's id, which must be of type Router. */
export async function loadTunnelIdentity(db: Db, routerId: string): Promise<TunnelIdentityRow> {
  const identity = await tunnelIdentity(db, routerId);
  if (!identity || identity.type_id !== 'Router')
    throw new EdgeRequestError('tunneling not enabled', EdgeErrorCode.tunnelingNotEnabled);
  return identity;
}

export interface EnsuredApiSession {
  apiSession: ApiSessionRow;
  /** The router did not know this API session yet: the answer carries it (its apiSession field). */
  isNew: boolean;
}

/**
 * common_tunnel.go ensureApiSession: the channel's current API session while it lasts (marked active); else the
 * identity's newest (upstream's annotation); else a new one with `configTypes` (none: the channel's last, or all).
 * One channel makes at most one at a time.
 */
export async function ensureApiSession(
  deps: TunnelDeps,
  state: TunnelState,
  identity: TunnelIdentityRow,
  configTypes: readonly string[] = [],
): Promise<EnsuredApiSession> {
  const current = await currentApiSession(deps, state, identity.id);
  if (current) return { apiSession: current, isNew: false };
  return state.creatingApiSession(async () => {
    const again = await currentApiSession(deps, state, identity.id);
    if (again) return { apiSession: again, isNew: false };
    const types = configTypes.length > 0 ? configTypes : state.configTypes.length > 0 ? state.configTypes : ['all'];
    const kept = await deps.store.read((db) => newestApiSessionOf(db, identity.id));
    if (kept) {
      deps.recordActivity([kept.id]);
      state.apiSessionId = kept.id;
      return { apiSession: kept, isNew: true };
    }
    const apiSession = await deps.store.transaction(
      async (tx) =>
        insertApiSession(tx, deps.clock, deps.ids, {
          identityId: identity.id,
          authenticatorId: null,
          ipAddress: null,
          configTypes: await resolveConfigTypes(tx, types),
          isMfaRequired: false,
        }),
      { touches: [writeAreas.identity(identity.id)] },
    );
    state.apiSessionId = apiSession.id;
    state.configTypes = [...types];
    return { apiSession, isNew: true };
  });
}

async function currentApiSession(
  deps: TunnelDeps,
  state: TunnelState,
  identityId: string,
): Promise<ApiSessionRow | undefined> {
  if (state.apiSessionId === '') return undefined;
  const apiSession = await deps.store.read((db) => apiSessionById(db, state.apiSessionId));
  if (apiSession?.identity_id === identityId) {
    deps.recordActivity([apiSession.id]);
    return apiSession;
  }
  state.apiSessionId = '';
  return undefined;
}

/** common_tunnel.go updateIdentityInfo: the router's environment and build as its identity's envInfo and sdkInfo. */
export async function recordTunnelInfo(
  deps: TunnelDeps,
  identity: TunnelIdentityRow,
  request: CreateApiSessionRequest,
): Promise<void> {
  const envInfo = request.envInfo && {
    arch: request.envInfo.arch,
    os: request.envInfo.Os,
    osRelease: request.envInfo.OsRelease,
    osVersion: request.envInfo.OsVersion,
    domain: request.envInfo.Domain,
    hostname: request.envInfo.Hostname,
  };
  const sdkInfo = request.sdkInfo && {
    appId: request.sdkInfo.AppId,
    appVersion: request.sdkInfo.AppVersion,
    branch: request.sdkInfo.Branch,
    revision: request.sdkInfo.Revision,
    type: request.sdkInfo.Type,
    version: request.sdkInfo.Version,
  };
  const info = {
    ...(envInfo && JSON.stringify(envInfo) !== identity.env_info ? { envInfo: JSON.stringify(envInfo) } : {}),
    ...(sdkInfo && JSON.stringify(sdkInfo) !== identity.sdk_info ? { sdkInfo: JSON.stringify(sdkInfo) } : {}),
  };
  if (Object.keys(info).length === 0) return;
  const at = formatTimestamp(deps.clock());
  await deps.store.transaction((tx) => updateClientInfo(tx, identity.id, info, at), {
    touches: [writeAreas.identity(identity.id)],
  });
}

/** edge_ctrl_pb.GetPrecedence: the stored name as the wire's enum (anything else is Default). */
function precedenceOf(name: unknown): TerminatorPrecedence {
  if (name === 'required') return TerminatorPrecedence.Required;
  if (name === 'failed') return TerminatorPrecedence.Failed;
  return TerminatorPrecedence.Default;
}

function jsonObject(text: string | null): Record<string, unknown> {
  if (!text) return {};
  const value = parseJsonValue(text);
  return isJsonObject(value) ? value : {};
}

/** getCreateApiSessionResponse: the API session and the identity's hosting defaults, as the router's tunneler uses them. */
export function apiSessionResponse(
  identity: TunnelIdentityRow,
  apiSession: ApiSessionRow,
  sessionTimeoutMs: number,
): CreateApiSessionResponse {
  const appData = jsonObject(identity.app_data);
  const costs = jsonObject(identity.service_hosting_costs);
  const precedences = jsonObject(identity.service_hosting_precedences);
  return create(CreateApiSessionResponseSchema, {
    sessionId: apiSession.id,
    token: apiSession.token,
    refreshIntervalSeconds: Math.max(0, Math.floor((sessionTimeoutMs - 10_000) / 1000)),
    identityId: identity.id,
    identityName: identity.name,
    defaultHostingPrecedence: precedenceOf(identity.default_hosting_precedence),
    defaultHostingCost: Number(identity.default_hosting_cost),
    // Go's json.Encoder: keys sorted, a trailing newline; nothing at all for no app data.
    appDataJson: Object.keys(appData).length === 0 ? '' : `${JSON.stringify(sortKeys(appData))}\n`,
    servicePrecedences: Object.fromEntries(Object.entries(precedences).map(([k, v]) => [k, precedenceOf(v)])),
    serviceCosts: Object.fromEntries(Object.entries(costs).map(([k, v]) => [k, Number(v)])),
  });
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!isJsonObject(value)) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortKeys(value[key])]),
  );
}
