// Which posture checks apply to an identity's use of services: per service policy linking the two, the checks
// its `postureCheckRoles` select (ziti `model/edge_service_manager.go` GetPolicyPostureChecks), read from the
// policy engine's membership tables.
import type { Db } from '../store/store.js';
import {
  postureChecksOfIdentity as checkRowsOfIdentity,
  postureChecksOfPolicies,
  servicePoliciesLinking,
  type PolicyLinkRow,
  type PostureCheckRow,
} from '../store/queries/posture.js';
import type { PostureCheckRecord } from './check-evaluation.js';
import { parseJsonValue } from '../lib/json-value.js';
import { isJsonObject } from '../lib/object-path.js';

export type PolicyType = 'Dial' | 'Bind';

export interface PolicyPostureChecks {
  policyId: string;
  policyName: string;
  policyType: PolicyType;
  checks: PostureCheckRecord[];
}

/** Upstream stores a service policy's type as 1 (Dial) or 2 (Bind). */
export const policyTypeName = (stored: unknown): PolicyType => (stored === 2 ? 'Bind' : 'Dial');

/**
 * Per service: the service policies of either type that link the identity and the service, ordered by policy id
 * (upstream's order is a Go map's, i.e. none), each with its checks ordered by id (bolt's link order). While no
 * posture check exists at all upstream looks at no policy (`EdgeServiceManager.GetPolicyPostureChecks`), so
 * services show placeholder query sets and sessions name no passing policies (servicePoliciesLinking finds none).
 */
export async function policyPostureChecks(
  db: Db,
  identityId: string,
  serviceIds: readonly string[],
): Promise<Map<string, PolicyPostureChecks[]>> {
  if (serviceIds.length === 0) return new Map();
  const policies = await servicePoliciesLinking(db, identityId, serviceIds);
  const checks = await postureChecksOfPolicies(db, [...new Set(policies.map((policy) => policy.policyId))]);
  return policiesWithChecks(serviceIds, policies, checks);
}

/** policyPostureChecks from the rows it reads: the linking policies and their checks (read with other things). */
export function policiesWithChecks(
  serviceIds: readonly string[],
  policies: readonly PolicyLinkRow[],
  checkRows: readonly PostureCheckRow[],
): Map<string, PolicyPostureChecks[]> {
  const byService = new Map<string, PolicyPostureChecks[]>(serviceIds.map((id) => [id, []]));
  const checks = new Map<string, PostureCheckRecord[]>();
  for (const row of checkRows) checks.set(row.policyId, [...(checks.get(row.policyId) ?? []), toRecord(row)]);
  for (const row of policies) {
    byService.get(row.serviceId)?.push({
      policyId: row.policyId,
      policyName: row.name,
      policyType: policyTypeName(row.type),
      checks: checks.get(row.policyId) ?? [],
    });
  }
  return byService;
}

/** Every check of any service policy that selects the identity: what its posture reports can change. */
export async function postureChecksOfIdentity(db: Db, identityId: string): Promise<PostureCheckRecord[]> {
  return (await checkRowsOfIdentity(db, identityId)).map(toRecord);
}

const jsonObject = (value: unknown): Record<string, unknown> => (isJsonObject(value) ? value : {});

function toRecord(row: PostureCheckRow): PostureCheckRecord {
  return {
    id: row.id,
    name: row.name,
    typeId: row.typeId,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    tags: parseJsonValue(row.tags),
    details: jsonObject(parseJsonValue(row.details)),
  };
}
