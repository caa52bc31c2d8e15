// A service's `postureQueries` for one identity: per service policy linking the two, the posture checks that policy
// requires and whether they pass (ziti `routes/service_api_model.go` MapServiceToRestModel, GetPolicyPostureChecks).
import { sql } from 'kysely';
import type { Db } from '../store/store.js';

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

/** Upstream's "no timeout". */
const NO_TIMEOUT = -1;

interface PolicyRow {
  policy_id: string;
  service_id: string;
  type: number;
}

interface CheckRow {
  policy_id: string;
  id: string;
  created_at: string;
  updated_at: string;
  tags: string;
  type_id: string;
  details: string;
}

/**
 * For each service of a page (with the caller's permissions on it): one entry per service policy of either type
 * that links the identity and the service, carrying that policy's checks. When no posture check exists at all, or
 * no policy links the two, upstream answers one passing placeholder per permission instead. Entries are ordered
 * by policy id (upstream's order is a Go map's, i.e. none) and checks by id (bolt's link order).
 */
export async function postureQueriesFor(
  db: Db,
  identityId: string | undefined,
  services: readonly { id: string; permissions: readonly string[] }[],
): Promise<Map<string, PolicyPostureQueries[]>> {
  const byService = new Map<string, PolicyPostureQueries[]>(services.map((s) => [s.id, []]));
  const anyCheck = await db.selectFrom('posture_checks').select('id').limit(1).executeTakeFirst();
  if (identityId && anyCheck && services.length > 0) {
    const policies = await sql<PolicyRow>`SELECT pi.policy_id AS policy_id, ps.entity_id AS service_id, p.type AS type
      FROM service_policy_identities pi
      JOIN service_policy_services ps ON ps.policy_id = pi.policy_id
      JOIN service_policies p ON p.id = pi.policy_id
      WHERE pi.entity_id = ${identityId} AND ps.entity_id IN (${sql.join(services.map((s) => s.id))})
      ORDER BY pi.policy_id`.execute(db);
    const checks = await checksOfPolicies(db, [...new Set(policies.rows.map((row) => row.policy_id))]);
    for (const row of policies.rows) {
      const queries = (checks.get(row.policy_id) ?? []).map(toPostureQuery);
      byService.get(row.service_id)!.push({
        isPassing: queries.every((query) => query.isPassing),
        policyId: row.policy_id,
        // Stored as upstream stores it: 1 Dial, 2 Bind.
        policyType: row.type === 2 ? 'Bind' : 'Dial',
        postureQueries: queries,
      });
    }
  }
  for (const service of services) {
    const entries = byService.get(service.id)!;
    if (entries.length === 0) entries.push(...service.permissions.map(placeholder));
  }
  return byService;
}

function placeholder(permission: string): PolicyPostureQueries {
  return { isPassing: true, policyId: `dummy ${permission.toLowerCase()} policy: no posture checks defined`, policyType: permission, postureQueries: [] };
}

async function checksOfPolicies(db: Db, policyIds: readonly string[]): Promise<Map<string, CheckRow[]>> {
  const byPolicy = new Map<string, CheckRow[]>();
  if (policyIds.length === 0) return byPolicy;
  const rows = await sql<CheckRow>`SELECT m.policy_id AS policy_id, c.id AS id, c.created_at AS created_at, c.updated_at AS updated_at,
      c.tags AS tags, c.type_id AS type_id, c.details AS details
    FROM service_policy_posture_checks m JOIN posture_checks c ON c.id = m.entity_id
    WHERE m.policy_id IN (${sql.join(policyIds)}) ORDER BY c.id`.execute(db);
  for (const row of rows.rows) byPolicy.set(row.policy_id, [...(byPolicy.get(row.policy_id) ?? []), row]);
  return byPolicy;
}

function toPostureQuery(check: CheckRow): PostureQuery {
  const details = JSON.parse(check.details) as Record<string, unknown>;
  const timeout = check.type_id === 'MFA' ? mfaTimeout(details) : NO_TIMEOUT;
  const query: PostureQuery = {
    _links: { self: { href: `./posture-checks/${check.id}` } },
    createdAt: check.created_at,
    id: check.id,
    tags: JSON.parse(check.tags) as unknown,
    updatedAt: check.updated_at,
    isPassing: isCheckPassing(),
    queryType: check.type_id,
    timeout,
    // Without MFA posture data a check with a timeout has none left; one without never times out.
    timeoutRemaining: timeout,
  };
  if (check.type_id === 'MFA' && timeout !== NO_TIMEOUT) query.timeoutRemaining = 0;
  if (check.type_id === 'PROCESS') query.process = processOf(details.process);
  if (check.type_id === 'PROCESS_MULTI') query.processes = ((details.processes ?? []) as unknown[]).map(processOf);
  return query;
}

/** MFA's `timeoutSeconds` is stored as -1 when the check has none (ziti `PostureCheckMfa.GetTimeoutSeconds`). */
function mfaTimeout(details: Record<string, unknown>): number {
  const seconds = typeof details.timeoutSeconds === 'number' ? details.timeoutSeconds : NO_TIMEOUT;
  return seconds > 0 ? seconds : NO_TIMEOUT;
}

function processOf(value: unknown): { osType: string; path: string } {
  const process = (value ?? {}) as { osType?: string; path?: string };
  return { osType: process.osType ?? '', path: process.path ?? '' };
}

/**
 * TODO(posture responses, issue 5 follow-up): evaluate against the identity's posture data once clients can
 * report it; until then no check has data to pass on, MFA included (upstream fails a check without data).
 */
function isCheckPassing(): boolean {
  return false;
}
