// Which posture checks apply to an identity's use of services: per service policy linking the two, the checks
// its `postureCheckRoles` select (ziti `model/edge_service_manager.go` GetPolicyPostureChecks), read from the
// policy engine's membership tables.
import { sql } from 'kysely';
import type { Db } from '../store/store.js';
import type { PostureCheckRecord } from './check-evaluation.js';

export type PolicyType = 'Dial' | 'Bind';

export interface PolicyPostureChecks {
  policyId: string;
  policyName: string;
  policyType: PolicyType;
  checks: PostureCheckRecord[];
}

interface PolicyRow {
  policy_id: string;
  name: string;
  service_id: string;
  type: number;
}

interface CheckRow {
  policy_id: string;
  id: string;
  name: string;
  type_id: string;
  created_at: string;
  updated_at: string;
  tags: string;
  details: string;
}

/** Upstream stores a service policy's type as 1 (Dial) or 2 (Bind). */
export const policyTypeName = (stored: unknown): PolicyType => (stored === 2 ? 'Bind' : 'Dial');

/**
 * Per service: the service policies of either type that link the identity and the service, ordered by policy id
 * (upstream's order is a Go map's, i.e. none), each with its checks ordered by id (bolt's link order). While no
 * posture check exists at all upstream looks at no policy (`EdgeServiceManager.GetPolicyPostureChecks`), so
 * services show placeholder query sets and sessions name no passing policies.
 */
export async function policyPostureChecks(db: Db, identityId: string, serviceIds: readonly string[]): Promise<Map<string, PolicyPostureChecks[]>> {
  const byService = new Map<string, PolicyPostureChecks[]>(serviceIds.map((id) => [id, []]));
  if (serviceIds.length === 0) return byService;
  const anyCheck = await db.selectFrom('posture_checks').select('id').limit(1).executeTakeFirst();
  if (!anyCheck) return byService;
  const policies = await sql<PolicyRow>`SELECT pi.policy_id AS policy_id, p.name AS name, ps.entity_id AS service_id, p.type AS type
    FROM service_policy_identities pi
    JOIN service_policy_services ps ON ps.policy_id = pi.policy_id
    JOIN service_policies p ON p.id = pi.policy_id
    WHERE pi.entity_id = ${identityId} AND ps.entity_id IN (${sql.join([...new Set(serviceIds)])})
    ORDER BY pi.policy_id`.execute(db);
  const checks = await checksOfPolicies(db, [...new Set(policies.rows.map((row) => row.policy_id))]);
  for (const row of policies.rows) {
    byService.get(row.service_id)?.push({ policyId: row.policy_id, policyName: row.name, policyType: policyTypeName(row.type), checks: checks.get(row.policy_id) ?? [] });
  }
  return byService;
}

/** Every check of any service policy that selects the identity: what its posture reports can change. */
export async function postureChecksOfIdentity(db: Db, identityId: string): Promise<PostureCheckRecord[]> {
  const rows = await sql<CheckRow>`SELECT DISTINCT '' AS policy_id, c.id AS id, c.name AS name, c.type_id AS type_id, c.created_at AS created_at,
      c.updated_at AS updated_at, c.tags AS tags, c.details AS details
    FROM service_policy_identities pi
    JOIN service_policy_posture_checks m ON m.policy_id = pi.policy_id
    JOIN posture_checks c ON c.id = m.entity_id
    WHERE pi.entity_id = ${identityId} ORDER BY c.id`.execute(db);
  return rows.rows.map(toRecord);
}

async function checksOfPolicies(db: Db, policyIds: readonly string[]): Promise<Map<string, PostureCheckRecord[]>> {
  const byPolicy = new Map<string, PostureCheckRecord[]>();
  if (policyIds.length === 0) return byPolicy;
  const rows = await sql<CheckRow>`SELECT m.policy_id AS policy_id, c.id AS id, c.name AS name, c.type_id AS type_id, c.created_at AS created_at,
      c.updated_at AS updated_at, c.tags AS tags, c.details AS details
    FROM service_policy_posture_checks m JOIN posture_checks c ON c.id = m.entity_id
    WHERE m.policy_id IN (${sql.join(policyIds)}) ORDER BY c.id`.execute(db);
  for (const row of rows.rows) byPolicy.set(row.policy_id, [...(byPolicy.get(row.policy_id) ?? []), toRecord(row)]);
  return byPolicy;
}

function toRecord(row: CheckRow): PostureCheckRecord {
  return {
    id: row.id,
    name: row.name,
    typeId: row.type_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    tags: JSON.parse(row.tags) as unknown,
    details: JSON.parse(row.details) as Record<string, unknown>,
  };
}
