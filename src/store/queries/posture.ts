// Posture: the checks that apply to an identity's use of services (through the policy engine's memberships), the
// MFA checks that prompt on a wake or unlock, and the queue of identities whose sessions are evaluated again.
import { sql, type RawBuilder } from 'kysely';
import { typed } from '../connection.js';
import { inTextList, limitOf, preparedQuery } from '../prepared.js';
import type { Db } from '../store.js';

export interface PolicyLinkRow {
  policyId: string;
  name: string;
  serviceId: string;
  /** Stored as upstream: 1 Dial, 2 Bind. */
  type: number;
}

export interface PostureCheckRow {
  policyId: string;
  id: string;
  name: string;
  typeId: string;
  createdAt: string;
  updatedAt: string;
  /** JSON text. */
  tags: string;
  /** The type-specific fields, JSON text. */
  details: string;
}

const checkColumns = sql`c.id AS id, c.name AS name, c.type_id AS "typeId", c.created_at AS "createdAt", c.updated_at AS "updatedAt", c.tags AS tags, c.details AS details`;

const selectAnyPostureCheck = preparedQuery((q) => q.selectFrom('posture_checks').select('id').limit(limitOf(1)));

export async function anyPostureCheck(db: Db): Promise<boolean> {
  return (await selectAnyPostureCheck(db)).length > 0;
}

// Driven from the services (each in a few policies), with the identity tested per policy by the primary key: joined
// the other way round, SQLite went through each of the identity's policies testing every service of the page
// (100 policies × 500 services for an identity that sees a thousand).
/**
 * The service policies (`ps`, `p`) linking the identity to the services of `services` (a parenthesised list), none
 * while no posture check exists at all: the one statement of this rule, which the session create's read embeds too.
 */
export const policiesLinkingSql = (
  identityId: string,
  services: RawBuilder<unknown>,
) => sql`FROM service_policy_services ps
    JOIN service_policies p ON p.id = ps.policy_id
    WHERE ps.entity_id IN ${services}
      AND EXISTS (SELECT 1 FROM service_policy_identities pi WHERE pi.policy_id = ps.policy_id AND pi.entity_id = ${identityId})
      AND EXISTS (SELECT 1 FROM posture_checks)`;

const selectPoliciesLinking = preparedQuery(
  (
    q,
    identityId: string,
    serviceIds: readonly string[],
  ) => sql<PolicyLinkRow>`SELECT ps.policy_id AS "policyId", p.name AS name, ps.entity_id AS "serviceId", p.type AS type
    ${policiesLinkingSql(identityId, inTextList(q, serviceIds))}
    ORDER BY ps.policy_id`,
);

/**
 * The service policies of either type that link the identity to one of these services, by policy id; none while no
 * posture check exists at all (then no policy has checks to show, and upstream looks at none).
 */
export async function servicePoliciesLinking(
  db: Db,
  identityId: string,
  serviceIds: readonly string[],
): Promise<PolicyLinkRow[]> {
  return selectPoliciesLinking(db, identityId, [...new Set(serviceIds)]);
}

const selectChecksOfPolicies = preparedQuery(
  (q, policyIds: readonly string[]) => sql<PostureCheckRow>`SELECT m.policy_id AS "policyId", ${checkColumns}
    FROM service_policy_posture_checks m JOIN posture_checks c ON c.id = m.entity_id
    WHERE m.policy_id IN ${inTextList(q, policyIds)} ORDER BY c.id`,
);

/** The posture checks each of these service policies requires, by check id. */
export async function postureChecksOfPolicies(db: Db, policyIds: readonly string[]): Promise<PostureCheckRow[]> {
  if (policyIds.length === 0) return [];
  return selectChecksOfPolicies(db, policyIds);
}

/** Every check of any service policy that selects the identity, by id (`policyId` empty). */
export async function postureChecksOfIdentity(db: Db, identityId: string): Promise<PostureCheckRow[]> {
  const { rows } = await sql<PostureCheckRow>`SELECT DISTINCT '' AS "policyId", ${checkColumns}
    FROM service_policy_identities pi
    JOIN service_policy_posture_checks m ON m.policy_id = pi.policy_id
    JOIN posture_checks c ON c.id = m.entity_id
    WHERE pi.entity_id = ${identityId} ORDER BY c.id`.execute(db);
  return rows;
}

/**
 * The identity's services behind MFA checks that prompt on a wake (`onWake`) or an unlock (`onUnlock`), through
 * its service policies, with each check's details (JSON text).
 */
export async function promptingMfaChecks(
  db: Db,
  identityId: string,
  onWake: boolean,
  onUnlock: boolean,
): Promise<{ serviceId: string; serviceName: string; details: string }[]> {
  const prompts = [...(onWake ? [sql`c.prompt_on_wake = 1`] : []), ...(onUnlock ? [sql`c.prompt_on_unlock = 1`] : [])];
  if (prompts.length === 0) return [];
  const { rows } = await sql<{
    serviceId: string;
    serviceName: string;
    details: string;
  }>`SELECT DISTINCT s.id AS "serviceId", s.name AS "serviceName", c.details AS details
    FROM service_policy_identities pi
    JOIN service_policy_posture_checks m ON m.policy_id = pi.policy_id
    JOIN posture_checks c ON c.id = m.entity_id AND c.type_id = 'MFA'
    JOIN service_policy_services ps ON ps.policy_id = pi.policy_id
    JOIN services s ON s.id = ps.entity_id
    WHERE pi.entity_id = ${identityId} AND (${sql.join(prompts, sql` OR `)})`.execute(db);
  return rows;
}

/** Up to `limit` identities queued for their sessions' posture to be evaluated again. */
export async function queuedPostureRechecks(db: Db, limit: number): Promise<string[]> {
  const rows = await typed(db).selectFrom('session_posture_rechecks').select('identity_id').limit(limit).execute();
  return rows.map((row) => row.identity_id);
}

export async function dequeuePostureRechecks(tx: Db, identityIds: readonly string[]): Promise<void> {
  if (identityIds.length > 0)
    await typed(tx).deleteFrom('session_posture_rechecks').where('identity_id', 'in', identityIds).execute();
}

/** Queues every identity holding sessions, when any posture check exists (what a restart forgot, evaluated again). */
export async function queueEveryIdentityWithSessions(tx: Db): Promise<void> {
  if (!(await anyPostureCheck(tx))) return;
  await sql`INSERT INTO session_posture_rechecks (identity_id) SELECT DISTINCT identity_id FROM sessions WHERE true ON CONFLICT (identity_id) DO NOTHING`.execute(
    tx,
  );
}

/**
 * An MFA check's two filterable fields as columns (NULL for other check types, whose symbols have no value), kept
 * beside the check's JSON details.
 */
export async function setPromptColumns(
  tx: Db,
  checkId: string,
  prompts: { promptOnWake: boolean; promptOnUnlock: boolean } | undefined,
): Promise<void> {
  await typed(tx)
    .updateTable('posture_checks')
    .set({
      prompt_on_wake: prompts ? Number(prompts.promptOnWake) : null,
      prompt_on_unlock: prompts ? Number(prompts.promptOnUnlock) : null,
    })
    .where('id', '=', checkId)
    .execute();
}

/** An identity's reported posture document (JSON), if its clients reported anything. */
export async function reportedPostureText(db: Db, identityId: string): Promise<string | undefined> {
  return (
    await typed(db)
      .selectFrom('reported_posture')
      .select('data')
      .where('identity_id', '=', identityId)
      .executeTakeFirst()
  )?.data;
}

export async function putReportedPosture(tx: Db, identityId: string, data: string, at: string): Promise<void> {
  await typed(tx)
    .insertInto('reported_posture')
    .values({ identity_id: identityId, data, updated_at: at })
    .onConflict((conflict) => conflict.column('identity_id').doUpdateSet({ data, updated_at: at }))
    .execute();
}

/** Up to `limit` identities with reported posture, after `after` in id order. */
export async function reportedPostureIdentities(db: Db, after: string, limit: number): Promise<string[]> {
  const rows = await typed(db)
    .selectFrom('reported_posture')
    .select('identity_id')
    .where('identity_id', '>', after)
    .orderBy('identity_id')
    .limit(limit)
    .execute();
  return rows.map((row) => row.identity_id);
}
