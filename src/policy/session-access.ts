// Sessions follow the access they were created under: when a policy or attribute change takes an identity's Dial
// or Bind on a service away, its sessions of that type for that service go in the same write (reference §6.4).
import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../store/store.js';

/**
 * Deletes the sessions among (identities × services) whose type the identity may no longer use. The two sets are
 * those of the pair counts just lowered, so the work follows the change, not the number of sessions. Admins keep
 * theirs, as upstream exempts them (`model/session_manager.go` via the access-lost event handler).
 */
export async function dropSessionsWithoutAccess(tx: Db, identityIds: RawBuilder<unknown>, serviceIds: RawBuilder<unknown>): Promise<void> {
  const { rows } = await sql<{ any: number }>`SELECT EXISTS (SELECT 1 FROM sessions) AS any`.execute(tx);
  if (!rows[0]?.any) return;
  await sql`DELETE FROM sessions WHERE identity_id IN (${identityIds}) AND service_id IN (${serviceIds})
    AND NOT EXISTS (SELECT 1 FROM identity_services p WHERE p.identity_id = sessions.identity_id AND p.service_id = sessions.service_id
      AND (CASE sessions.type WHEN 'Bind' THEN p.bind ELSE p.dial END) > 0)
    AND NOT EXISTS (SELECT 1 FROM identities i WHERE i.id = sessions.identity_id AND (i.is_admin = 1 OR i.is_default_admin = 1))`.execute(tx);
}
