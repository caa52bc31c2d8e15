// A service's `postureQueries` for one identity: per service policy linking the two, the posture checks that policy
// requires and whether they pass (ziti `routes/service_api_model.go` MapServiceToRestModel, GetPolicyPostureChecks).
import type { Db } from '../store/store.js';
import { formatTimestamp } from '../lib/clock.js';
import {
  checkLastUpdatedAt,
  checkTimeout,
  checkTimeoutRemaining,
  isCheckPassing,
  type PostureCheckRecord,
  type PostureView,
} from '../posture/check-evaluation.js';
import { NO_TIMEOUT } from '../posture/mfa-posture.js';
import { policyPostureChecks } from '../posture/policy-checks.js';
import { isJsonObject } from '../lib/object-path.js';
import { getOrAdd, mustGet } from '../lib/collections.js';

export interface PostureQuery {
  _links: Record<string, { href: string }>;
  createdAt: string;
  id: string;
  tags: unknown;
  updatedAt: string;
  isPassing: boolean;
  process?: { osType: string; path: string };
  processes?: { osType: string; path: string }[];
  queryType: string;
  timeout: number;
  timeoutRemaining: number;
}

export interface PolicyPostureQueries {
  isPassing: boolean;
  policyId: string;
  policyType: string;
  postureQueries: PostureQuery[];
}

/**
 * For each service of a page (with the caller's permissions on it): one entry per service policy of either type
 * that links the identity and the service, carrying that policy's checks evaluated for the caller's API session
 * (`view`). When no posture check exists at all, or no policy links the two, upstream answers one passing
 * placeholder per permission instead. The view is read only when some check applies; without one (outside a
 * request) no check passes.
 */
export async function postureQueriesFor(
  db: Db,
  identityId: string | undefined,
  services: readonly { id: string; permissions: readonly string[] }[],
  readView?: (checks: readonly PostureCheckRecord[]) => Promise<PostureView>,
): Promise<Map<string, PolicyPostureQueries[]>> {
  const byService = new Map<string, PolicyPostureQueries[]>(services.map((s) => [s.id, []]));
  if (identityId && services.length > 0) {
    const policies = await policyPostureChecks(
      db,
      identityId,
      services.map((s) => s.id),
    );
    const checks = [...policies.values()].flatMap((entries) => entries.flatMap((policy) => policy.checks));
    const view = checks.length > 0 && readView ? await readView(checks) : undefined;
    // A check shared by several policies and services is evaluated once per request, as upstream caches it.
    const queries = new Map<string, PostureQuery>();
    const queryOf = (check: PostureCheckRecord) => getOrAdd(queries, check.id, () => toPostureQuery(check, view));
    for (const [serviceId, entries] of policies) {
      for (const policy of entries) {
        const postureQueries = policy.checks.map(queryOf);
        mustGet(byService, serviceId).push({
          isPassing: postureQueries.every((query) => query.isPassing),
          policyId: policy.policyId,
          policyType: policy.policyType,
          postureQueries,
        });
      }
    }
  }
  for (const service of services) {
    const entries = mustGet(byService, service.id);
    if (entries.length === 0) entries.push(...service.permissions.map(placeholder));
  }
  return byService;
}

/** One per permission, shared by every service of a page (never changed once made). */
const placeholders = new Map<string, PolicyPostureQueries>();

function placeholder(permission: string): PolicyPostureQueries {
  let made = placeholders.get(permission);
  if (!made) {
    made = Object.freeze({
      isPassing: true,
      policyId: `dummy ${permission.toLowerCase()} policy: no posture checks defined`,
      policyType: permission,
      postureQueries: [],
    });
    placeholders.set(permission, made);
  }
  return made;
}

function toPostureQuery(check: PostureCheckRecord, view: PostureView | undefined): PostureQuery {
  const timeout = checkTimeout(check);
  // A prompting MFA check shows the wake or unlock that will prompt the user, when newer than the check itself.
  const stateChangedAt = view && checkLastUpdatedAt(check, view);
  const query: PostureQuery = {
    _links: { self: { href: `./posture-checks/${check.id}` } },
    createdAt: check.createdAt,
    id: check.id,
    tags: check.tags,
    updatedAt:
      stateChangedAt && stateChangedAt.getTime() > Date.parse(check.updatedAt)
        ? formatTimestamp(stateChangedAt)
        : check.updatedAt,
    isPassing: view ? isCheckPassing(check, view) : false,
    queryType: check.typeId,
    timeout,
    // Without a view nothing has passed: a check with a timeout has none left, one without never times out.
    timeoutRemaining: view ? checkTimeoutRemaining(check, view) : timeout === NO_TIMEOUT ? NO_TIMEOUT : 0,
  };
  if (check.typeId === 'PROCESS') query.process = processOf(check.details.process);
  if (check.typeId === 'PROCESS_MULTI')
    query.processes = (Array.isArray(check.details.processes) ? check.details.processes : []).map(processOf);
  return query;
}

function processOf(value: unknown): { osType: string; path: string } {
  const process = isJsonObject(value) ? value : {};
  return {
    osType: typeof process.osType === 'string' ? process.osType : '',
    path: typeof process.path === 'string' ? process.path : '',
  };
}
