// Sessions (an identity's leave to dial or bind one service through its API session) beyond the entity kit.
import { sql } from 'kysely';
import { typed } from '../connection.js';
import type { Db } from '../store.js';

/** The session this API session already holds for the service and type, if any (upstream's reuse). */
export async function reusableSessionId(db: Db, apiSessionId: string, serviceId: string, type: string): Promise<string | undefined> {
  // A plain statement: this runs on every create, where the query builder's compile step would cost more than it.
  const { rows } = await sql<{ id: string }>`SELECT id FROM sessions WHERE api_session_id = ${apiSessionId} AND service_id = ${serviceId} AND type = ${type}`.execute(db);
  return rows[0]?.id;
}

export interface SessionUse {
  id: string;
  apiSessionId: string;
  serviceId: string;
  type: string;
}

export async function sessionsOfIdentity(db: Db, identityId: string): Promise<SessionUse[]> {
  return typed(db)
    .selectFrom('sessions')
    .select(['id', 'api_session_id as apiSessionId', 'service_id as serviceId', 'type'])
    .where('identity_id', '=', identityId)
    .execute();
}

export async function deleteSessions(tx: Db, ids: readonly string[]): Promise<void> {
  if (ids.length > 0) await typed(tx).deleteFrom('sessions').where('id', 'in', ids).execute();
}
