// Per-identity "service list changed at" times, which `GET /current-api-session/service-updates` answers from.
import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../store/store.js';

/** Marks the service lists of the identities `identityIds` (a `SELECT` of identity ids) as changed at `at`. */
export async function touchServiceLists(tx: Db, identityIds: RawBuilder<unknown>, at: string): Promise<void> {
  await sql`INSERT INTO identity_service_updates (identity_id, changed_at)
    SELECT ids.id, ${at} FROM (${identityIds}) ids WHERE ids.id IS NOT NULL
    ON CONFLICT (identity_id) DO UPDATE SET changed_at = excluded.changed_at`.execute(tx);
}

/** Every identity that can dial or bind one of these services. */
export function identitiesOfServices(serviceIds: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`SELECT DISTINCT identity_id AS id FROM identity_services WHERE service_id IN (${serviceIds})`;
}

/** Every identity a service policy selects. */
export function identitiesOfServicePolicies(policyIds: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`SELECT DISTINCT entity_id AS id FROM service_policy_identities WHERE policy_id IN (${policyIds})`;
}
