// Sessions (an identity's leave to dial or bind one service through its API session) beyond the entity kit.
import { sql } from 'kysely';
import { typed } from '../connection.js';
import { preparedQuery } from '../prepared.js';
import type { Db } from '../store.js';

/** The session this API session already holds for the service and type, if any (upstream's reuse). */
export async function reusableSessionId(
  db: Db,
  apiSessionId: string,
  serviceId: string,
  type: string,
): Promise<string | undefined> {
  const [row] = await selectReusableSession(db, apiSessionId, serviceId, type);
  return row?.id;
}

const selectReusableSession = preparedQuery(
  (_q, apiSessionId: string, serviceId: string, type: string) =>
    sql<{
      id: string;
    }>`SELECT id FROM sessions WHERE api_session_id = ${apiSessionId} AND service_id = ${serviceId} AND type = ${type}`,
);

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
