// Per-identity "service list changed at" times, which `GET /current-api-session/service-updates` answers from.
import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../store/store.js';

/**
 * Marks the service lists of the identities `identityIds` (a `SELECT` of identity ids) as changed at `at`. What an
 * identity may use changed, so its sessions' posture is queued to be evaluated again as well.
 */
export async function touchServiceLists(tx: Db, identityIds: RawBuilder<unknown>, at: string): Promise<void> {
  await markServiceListsChanged(tx, identityIds, at);
  await queuePostureRechecks(tx, identityIds);
}

/** Only the change time: for changes that cannot alter posture outcomes (the posture monitor's own deletions). */
export async function markServiceListsChanged(tx: Db, identityIds: RawBuilder<unknown>, at: string): Promise<void> {
  await sql`INSERT INTO identity_service_updates (identity_id, changed_at)
    SELECT ids.id, ${at} FROM (${identityIds}) ids WHERE ids.id IS NOT NULL
    ON CONFLICT (identity_id) DO UPDATE SET changed_at = excluded.changed_at`.execute(tx);
}

/**
 * Queues those of the identities that hold sessions. Without any posture check every posture passes and without
 * sessions there is nothing to drop, so then nothing is queued (the common case costs one lookup).
 */
async function queuePostureRechecks(tx: Db, identityIds: RawBuilder<unknown>): Promise<void> {
  const { rows } = await sql<{ needed: number }>`SELECT (EXISTS (SELECT 1 FROM sessions) AND EXISTS (SELECT 1 FROM posture_checks)) AS needed`.execute(tx);
  if (!rows[0]?.needed) return;
  await sql`INSERT INTO session_posture_rechecks (identity_id)
    SELECT DISTINCT s.identity_id FROM sessions s WHERE s.identity_id IN (SELECT ids.id FROM (${identityIds}) ids)
    ON CONFLICT (identity_id) DO NOTHING`.execute(tx);
}

/** Every identity that can dial or bind one of these services. */
export function identitiesOfServices(serviceIds: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`SELECT DISTINCT identity_id AS id FROM identity_services WHERE service_id IN (${serviceIds})`;
}

/** Every identity a service policy selects. */
export function identitiesOfServicePolicies(policyIds: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`SELECT DISTINCT entity_id AS id FROM service_policy_identities WHERE policy_id IN (${policyIds})`;
}
