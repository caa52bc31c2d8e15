// Sessions (an identity's leave to dial or bind one service through its API session) beyond the entity kit.
import { typed } from '../connection.js';
import type { Db } from '../store.js';

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
