// Sessions (an identity's leave to dial or bind one service through its API session) beyond the entity kit.
import type { Selectable } from 'kysely';
import { typed } from '../connection.js';
import type { SessionsTable } from '../schema.js';
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

export type SessionRow = Selectable<SessionsTable>;

/** These sessions, as stored (what a posture check ends). */
export async function sessionsWithIds(db: Db, ids: readonly string[]): Promise<SessionRow[]> {
  if (ids.length === 0) return [];
  return typed(db).selectFrom('sessions').selectAll().where('id', 'in', ids).execute();
}

/** The sessions of these API sessions (they end with them: the database cascades the delete). */
export async function sessionsOfApiSessions(db: Db, apiSessionIds: readonly string[]): Promise<SessionRow[]> {
  if (apiSessionIds.length === 0) return [];
  return typed(db).selectFrom('sessions').selectAll().where('api_session_id', 'in', apiSessionIds).execute();
}

/** The sessions of API sessions idle since before `cutoff` (an idle sweep ends them with their API sessions). */
export async function sessionsOfIdleApiSessions(db: Db, cutoff: string): Promise<SessionRow[]> {
  return typed(db)
    .selectFrom('sessions')
    .selectAll()
    .where('api_session_id', 'in', (eb) =>
      eb.selectFrom('api_sessions').select('id').where('last_activity_at', '<', cutoff),
    )
    .execute();
}
