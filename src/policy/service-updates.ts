// `lastChangeAt` for service-update polling: when the caller's service list last changed, never before its API
// session began (reference §4.8). SDKs poll it every few seconds, so it is two primary-key lookups in one query.
import { sql } from 'kysely';
import type { Db } from '../store/store.js';

/** Undefined when the API session no longer exists. */
export async function serviceListChangedAt(db: Db, apiSessionId: string): Promise<string | undefined> {
  const { rows } = await sql<{ created_at: string; changed_at: string | null }>`SELECT s.created_at AS created_at, u.changed_at AS changed_at
    FROM api_sessions s LEFT JOIN identity_service_updates u ON u.identity_id = s.identity_id
    WHERE s.id = ${apiSessionId}`.execute(db);
  const row = rows[0];
  if (!row) return undefined;
  // Both are RFC3339 with milliseconds in UTC, so text order is time order.
  return row.changed_at !== null && row.changed_at > row.created_at ? row.changed_at : row.created_at;
}
