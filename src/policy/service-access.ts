// What an identity may do with services and what it sees of them: visibility and permissions read from the
// policy engine's `identity_services` pairs (an index lookup, never a policy evaluation), with config and posture.
import { linkedTo, type Scope } from '../store/queries/scopes.js';
import { serviceExists, servicePair, servicePairs, serviceWithPair } from '../store/queries/service-access.js';
import type { Db } from '../store/store.js';
import type { ConfigTypeSelection } from '../store/queries/configs.js';
import { expandConfigs, sessionConfigTypes } from './config-expansion.js';
import { postureQueriesFor, type PolicyPostureQueries } from './posture-queries.js';
import type { PostureView } from '../posture/check-evaluation.js';

/** Who is looking: the identity and its API session (whose config types apply unless a request overrides them). */
export interface ServiceViewer {
  identityId: string;
  apiSessionId: string;
  isAdmin: boolean;
}

export interface ServiceAccessView {
  permissions: string[];
  config: Record<string, unknown>;
  postureQueries: PolicyPostureQueries[];
}

/** Restricts a list of services (aliased `t`) to those the identity may dial or bind. */
export function servicesOfIdentity(identityId: string): Scope {
  return linkedTo({ table: 'identity_services', parentTable: 'identities', parentColumn: 'identity_seq', childColumn: 'service_seq' }, identityId);
}

/** Admins see every service; anyone else only the services a policy lets them dial or bind (reference §4.1). */
export async function canSeeService(db: Db, viewer: ServiceViewer, serviceId: string): Promise<boolean> {
  if (viewer.isAdmin) return serviceExists(db, serviceId);
  return (await servicePair(db, viewer.identityId, serviceId)) !== undefined;
}

/** A service as an identity may use it: its name and which ways. */
export interface ServiceGrant {
  name: string;
  canDial: boolean;
  canBind: boolean;
}

/**
 * The service if the viewer can see it (reference §4.1), with what it may do there, in one lookup: undefined when it
 * does not exist or, for a non-admin, no policy grants it anything.
 */
export async function serviceGrant(db: Db, viewer: ServiceViewer, serviceId: string): Promise<ServiceGrant | undefined> {
  const row = await serviceWithPair(db, viewer.identityId, serviceId);
  if (!row || (!viewer.isAdmin && row.dial === null)) return undefined;
  return { name: row.name, canDial: Number(row.dial ?? 0) > 0, canBind: Number(row.bind ?? 0) > 0 };
}

/**
 * `Bind` then `Dial`, from the pair counts; `["Invalid"]` when neither (only admins see such services), which
 * upstream sends so SDKs never meet a null list (ziti `model/edge_service_manager.go` ReadForIdentityInTx).
 */
export async function servicePermissions(db: Db, identityId: string | undefined, serviceIds: readonly string[]): Promise<Map<string, string[]>> {
  const counts = identityId ? await servicePairs(db, identityId, serviceIds) : new Map<string, never>();
  return new Map(
    serviceIds.map((id) => {
      const pair = counts.get(id);
      const permissions = [...(Number(pair?.bind ?? 0) > 0 ? ['Bind'] : []), ...(Number(pair?.dial ?? 0) > 0 ? ['Dial'] : [])];
      return [id, permissions.length > 0 ? permissions : ['Invalid']];
    }),
  );
}

/** Upstream's nil permission list, shown as the `["Invalid"]` its service lists send instead of null. */
function noPermissions(serviceIds: readonly string[]): Map<string, string[]> {
  return new Map(serviceIds.map((id) => [id, ['Invalid']]));
}

/**
 * The per-caller fields of a page of services, in a fixed number of queries. `configTypes` overrides the API
 * session's selection (the client list's `?configTypes=`); without a viewer (outside a request) nothing is granted.
 * `posture` is what the viewer's API session reported, against which the posture queries are evaluated. Without
 * `withPermissions` (services listed under another entity, which upstream reads without the caller's permissions)
 * the permissions are the nil list's stand-in.
 */
export async function serviceAccessViews(
  db: Db,
  viewer: ServiceViewer | undefined,
  serviceIds: readonly string[],
  configTypes?: ConfigTypeSelection,
  posture?: PostureView,
  withPermissions = true,
): Promise<ServiceAccessView[]> {
  const identityId = viewer?.identityId;
  const selection = configTypes ?? (viewer ? await sessionConfigTypes(db, viewer.apiSessionId) : { all: false, ids: [] });
  const permissions = withPermissions ? await servicePermissions(db, identityId, serviceIds) : noPermissions(serviceIds);
  const configs = await expandConfigs(db, identityId, serviceIds, selection);
  // Without permissions there is nothing for upstream to put placeholder query sets in for.
  const queries = await postureQueriesFor(db, identityId, serviceIds.map((id) => ({ id, permissions: withPermissions ? permissions.get(id)! : [] })), posture);
  return serviceIds.map((id) => ({ permissions: permissions.get(id)!, config: configs.get(id)!, postureQueries: queries.get(id)! }));
}
