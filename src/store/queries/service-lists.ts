// Per-identity "service list changed at" times, which `GET /current-api-session/service-updates` answers from, and
// the queue of identities whose sessions' posture must be evaluated again when what they may use changes.
import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../store.js';

/** Whose service lists a change touches, found by the database from what changed. */
export type ServiceListHolders =
  /** These identities. */
  | { identities: readonly string[] }
  /** Every identity these service policies select. */
  | { servicePolicies: readonly string[] }
  /** Every identity a service policy requiring this posture check grants a service to (it answers the check). */
  | { servicePoliciesOfPostureCheck: string }
  /** Every identity that can dial or bind one of these services. */
  | { services: readonly string[] }
  /** Every identity that can dial or bind a service using this config, or overrides a service's config with it. */
  | { usersOfConfig: string }
  /** The identities the policy engine's current delta adds to or removes from a policy (store-internal use). */
  | { policyDelta: true };

/** Every identity a service policy among `policyIds` (a SELECT of ids) selects. */
export function identitiesOfServicePolicies(policyIds: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`SELECT DISTINCT entity_id AS id FROM service_policy_identities WHERE policy_id IN (${policyIds})`;
}

function identitiesOfServices(serviceIds: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`SELECT DISTINCT i.id AS id FROM identity_services p JOIN identities i ON i.seq = p.identity_seq
    WHERE p.service_seq IN (SELECT seq FROM services WHERE id IN (${serviceIds}))`;
}

const idList = (ids: readonly string[]) => (ids.length > 0 ? sql.join(ids) : sql`SELECT NULL WHERE 1 = 0`);

/** The holders as a SELECT of identity ids. */
function holderIds(holders: ServiceListHolders): RawBuilder<unknown> {
  if ('identities' in holders)
    return holders.identities.length > 0
      ? sql`SELECT id FROM identities WHERE id IN (${sql.join(holders.identities)})`
      : sql`SELECT NULL AS id WHERE 1 = 0`;
  if ('servicePolicies' in holders) return identitiesOfServicePolicies(idList(holders.servicePolicies));
  if ('servicePoliciesOfPostureCheck' in holders) {
    // A policy that grants no service shows its checks to nobody.
    return identitiesOfServicePolicies(sql`SELECT c.policy_id FROM service_policy_posture_checks c WHERE c.entity_id = ${holders.servicePoliciesOfPostureCheck}
      AND EXISTS (SELECT 1 FROM service_policy_services s WHERE s.policy_id = c.policy_id)`);
  }
  if ('services' in holders) return identitiesOfServices(idList(holders.services));
  if ('usersOfConfig' in holders) {
    const config = holders.usersOfConfig;
    return sql`${identitiesOfServices(sql`SELECT entity_id FROM service_configs WHERE value = ${config}`)}
      UNION SELECT identity_id AS id FROM identity_service_configs WHERE config_id = ${config}`;
  }
  return sql`SELECT entity_id AS id FROM policy_delta WHERE kind IN ('added', 'removed')`;
}

/**
 * Marks the holders' service lists as changed at `at`. What they may use changed, so their sessions' posture is
 * queued to be evaluated again as well.
 */
export async function touchServiceLists(tx: Db, holders: ServiceListHolders, at: string): Promise<void> {
  const ids = holderIds(holders);
  await markChanged(tx, ids, at);
  await queueRechecks(tx, ids);
}

/** Only the change time of the holders' lists. */
export async function markServiceLists(tx: Db, holders: ServiceListHolders, at: string): Promise<void> {
  await markChanged(tx, holderIds(holders), at);
}

/**
 * Only the change time of one identity's list: for changes that cannot alter posture outcomes (the posture monitor's
 * own).
 */
export async function markServiceListChanged(tx: Db, identityId: string, at: string): Promise<void> {
  await markChanged(tx, sql`SELECT ${identityId} AS id`, at);
}

/**
 * Only the posture recheck of the holders' sessions: for policy changes that may leave an identity's access to a
 * service resting on other policies (and their posture checks) without changing what its list shows.
 */
export async function queuePostureRechecks(tx: Db, holders: ServiceListHolders): Promise<void> {
  await queueRechecks(tx, holderIds(holders));
}

/** The statement marking the identities of a SELECT of distinct ids (a column `id`) as changed at `at`. */
export function markChangedStatement(identityIds: RawBuilder<unknown>, at: unknown): RawBuilder<unknown> {
  return sql`INSERT INTO identity_service_updates (identity_id, changed_at)
    SELECT ids.id, ${at} FROM (${identityIds}) ids WHERE ids.id IS NOT NULL
    ON CONFLICT (identity_id) DO UPDATE SET changed_at = excluded.changed_at`;
}

async function markChanged(tx: Db, identityIds: RawBuilder<unknown>, at: string): Promise<void> {
  await markChangedStatement(identityIds, at).execute(tx);
}

/**
 * Queues those of the identities that hold sessions. Without any posture check every posture passes and without
 * sessions there is nothing to drop, so then nothing is queued (the common case costs one lookup).
 */
async function queueRechecks(tx: Db, identityIds: RawBuilder<unknown>): Promise<void> {
  const { rows } = await sql<{
    needed: number | boolean;
  }>`SELECT (EXISTS (SELECT 1 FROM sessions) AND EXISTS (SELECT 1 FROM posture_checks)) AS needed`.execute(tx);
  if (!rows[0]?.needed) return;
  await sql`INSERT INTO session_posture_rechecks (identity_id)
    SELECT DISTINCT s.identity_id FROM sessions s WHERE s.identity_id IN (SELECT ids.id FROM (${identityIds}) ids)
    ON CONFLICT (identity_id) DO NOTHING`.execute(tx);
}

/**
 * `lastChangeAt` for service-update polling: when the caller's service list last changed, never before its API
 * session began (docs/reference/policies-services-sessions.md §4.8). SDKs poll it every few seconds, so it is two
 * primary-key lookups in one query. Undefined when the API session no longer exists.
 */
export async function serviceListChangedAt(db: Db, apiSessionId: string): Promise<string | undefined> {
  const { rows } = await sql<{
    created_at: string;
    changed_at: string | null;
  }>`SELECT s.created_at AS created_at, u.changed_at AS changed_at
    FROM api_sessions s LEFT JOIN identity_service_updates u ON u.identity_id = s.identity_id
    WHERE s.id = ${apiSessionId}`.execute(db);
  const row = rows[0];
  if (!row) return undefined;
  // Both are RFC3339 with milliseconds in UTC, so text order is time order.
  return row.changed_at !== null && row.changed_at > row.created_at ? row.changed_at : row.created_at;
}
