// What an identity may do with services and what it sees of them: visibility and permissions read from the
// policy engine's `identity_services` pairs (an index lookup, never a policy evaluation), with config and posture.
import { serviceExists, servicePair, servicePairs, type PairCounts } from '../store/queries/service-access.js';
import type { Db } from '../store/store.js';
import type { ConfigTypeSelection } from '../store/queries/configs.js';
import { expandConfigs, sessionConfigTypes } from './config-expansion.js';
import { postureQueriesFor, type PolicyPostureQueries } from './posture-queries.js';
import type { PostureCheckRecord, PostureView } from '../posture/check-evaluation.js';
import { mustGet } from '../lib/collections.js';

/** Who is looking: the identity and its API session (whose config types apply unless a request overrides them). */
export interface ServiceViewer {
  identityId: string;
  apiSessionId: string;
  isAdmin: boolean;
}

export interface ServiceAccessView {
  permissions: readonly string[];
  config: Record<string, unknown>;
  postureQueries: PolicyPostureQueries[];
}

/**
 * Admins see every service; anyone else only the services a policy lets them dial or bind
 * (docs/reference/policies-services-sessions.md §4.1).
 */
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
 * The service if the viewer can see it (docs/reference/policies-services-sessions.md §4.1), with what it may do there,
 * from its name and the viewer's pair counts (null: none): undefined when it does not exist or, for a non-admin, no
 * policy grants it anything.
 */
export function grantOf(
  viewer: Pick<ServiceViewer, 'isAdmin'>,
  row: { name: string; dial: number | null; bind: number | null } | undefined,
): ServiceGrant | undefined {
  if (!row || (!viewer.isAdmin && row.dial === null)) return undefined;
  return { name: row.name, canDial: Number(row.dial ?? 0) > 0, canBind: Number(row.bind ?? 0) > 0 };
}

/**
 * `Bind` then `Dial`, from the pair counts; `["Invalid"]` when neither (only admins see such services), which
 * upstream sends so SDKs never meet a null list (ziti `model/edge_service_manager.go` ReadForIdentityInTx).
 */
export function permissionsOf(pair: PairCounts | undefined): readonly string[] {
  const bind = Number(pair?.bind ?? 0) > 0;
  const dial = Number(pair?.dial ?? 0) > 0;
  return bind ? (dial ? BIND_DIAL : BIND) : dial ? DIAL : INVALID;
}

// A page's services share these few lists rather than each making its own.
const BIND_DIAL: readonly string[] = Object.freeze(['Bind', 'Dial']);
const BIND: readonly string[] = Object.freeze(['Bind']);
const DIAL: readonly string[] = Object.freeze(['Dial']);
const INVALID: readonly string[] = Object.freeze(['Invalid']);

/** Each service's permissions (permissionsOf), from the identity's pairs. */
async function servicePermissions(
  db: Db,
  identityId: string | undefined,
  serviceIds: readonly string[],
): Promise<Map<string, readonly string[]>> {
  const counts = identityId ? await servicePairs(db, identityId, serviceIds) : new Map<string, never>();
  return new Map(serviceIds.map((id) => [id, permissionsOf(counts.get(id))]));
}

/** Upstream's nil permission list, shown as the `["Invalid"]` its service lists send instead of null. */
function noPermissions(serviceIds: readonly string[]): Map<string, readonly string[]> {
  return new Map(serviceIds.map((id) => [id, INVALID]));
}

/** How a page of services gets its permissions: from the pairs (read now, or already read with the page), or none. */
export type PermissionSource = { read: true } | { read: false } | { pairs: ReadonlyMap<string, PairCounts> };

function permissionsFrom(
  db: Db,
  identityId: string | undefined,
  serviceIds: readonly string[],
  source: PermissionSource,
): Promise<Map<string, readonly string[]>> | Map<string, readonly string[]> {
  if ('pairs' in source) return new Map(serviceIds.map((id) => [id, permissionsOf(source.pairs.get(id))]));
  return source.read ? servicePermissions(db, identityId, serviceIds) : noPermissions(serviceIds);
}

/**
 * The per-caller fields of a page of services, in a fixed number of queries. `configTypes` overrides the API
 * session's selection (the client list's `?configTypes=`); without a viewer (outside a request) nothing is granted.
 * `posture` reads what the viewer's API session reported for the checks that apply to the page, against which the
 * posture queries are evaluated (not at all when none applies). Permissions come as `permissionSource` says:
 * services listed under another entity, which upstream reads without the caller's permissions, get the nil list's
 * stand-in.
 */
export async function serviceAccessViews(
  db: Db,
  viewer: ServiceViewer | undefined,
  serviceIds: readonly string[],
  configTypes?: ConfigTypeSelection,
  posture?: (checks: readonly PostureCheckRecord[]) => Promise<PostureView>,
  permissionSource: PermissionSource = { read: true },
): Promise<ServiceAccessView[]> {
  if (serviceIds.length === 0) return [];
  const identityId = viewer?.identityId;
  const selection =
    configTypes ?? (viewer ? await sessionConfigTypes(db, viewer.apiSessionId) : { all: false, ids: [] });
  const permissions = await permissionsFrom(db, identityId, serviceIds, permissionSource);
  const configs = await expandConfigs(db, identityId, serviceIds, selection);
  // Without permissions there is nothing for upstream to put placeholder query sets in for.
  const withPermissions = !('read' in permissionSource) || permissionSource.read;
  const queries = await postureQueriesFor(
    db,
    identityId,
    serviceIds.map((id) => ({ id, permissions: withPermissions ? mustGet(permissions, id) : [] })),
    posture,
  );
  return serviceIds.map((id) => ({
    permissions: mustGet(permissions, id),
    config: mustGet(configs, id),
    postureQueries: mustGet(queries, id),
  }));
}
