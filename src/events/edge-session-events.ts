// `edge.apiSessions` and `edge.sessions` events from the committed changes of API sessions and sessions (upstream
// events/dispatcher_api_session.go and dispatcher_session.go listen to the same stores' creates and deletes).
import { EntityTypes } from './entity-types.js';
import type { SessionRow } from '../store/queries/sessions.js';
import type { Db } from '../store/store.js';
import { recordEntityChange, type EntityChangeFact } from './entity-change-log.js';
import type { ApiSessionEvent, SessionEvent } from './event-types.js';

const text = (value: unknown) => (typeof value === 'string' ? value : '');

/** The session event a committed entity change stands for, if any (from the fact: its states hold the token). */
export function edgeSessionEvent(
  change: EntityChangeFact,
  timestamp: string,
): ApiSessionEvent | SessionEvent | undefined {
  if (change.changeType !== 'created' && change.changeType !== 'deleted') return undefined;
  const state = change.changeType === 'created' ? change.after : change.before;
  if (!state) return undefined;
  if (change.entityType === EntityTypes.apiSessions)
    return {
      namespace: 'edge.apiSessions',
      event_type: change.changeType,
      id: text(state.id),
      timestamp,
      token: text(state.token),
      identity_id: text(state.identityId),
      ip_address: text(state.ipAddress),
    };
  if (change.entityType === EntityTypes.sessions)
    return {
      namespace: 'edge.sessions',
      event_type: change.changeType,
      session_type: text(state.type),
      id: text(state.id),
      timestamp,
      token: text(state.token),
      api_session_id: text(state.apiSessionId),
      // upstream's sessionDeleted leaves the identity out.
      identity_id: change.changeType === 'created' ? text(state.identityId) : '',
      service_id: text(state.serviceId),
    };
  return undefined;
}

/**
 * Records the sessions that end with their API sessions (the database cascades the delete, as upstream's API
 * session store deletes its sessions), in the deleting transaction and before the delete: their entityChange and
 * `edge.sessions` deleted events.
 */
export async function recordSessionsEnded(tx: Db, rows: readonly SessionRow[]): Promise<void> {
  for (const row of rows)
    await recordEntityChange(tx, {
      changeType: 'deleted',
      entityType: EntityTypes.sessions,
      entityId: row.id,
      before: {
        id: row.id,
        createdAt: row.created_at,
        updatedAt: row.updated_at,
        isSystem: row.is_system === 1,
        token: row.token,
        apiSessionId: row.api_session_id,
        identityId: row.identity_id,
        serviceId: row.service_id,
        type: row.type,
      },
    });
}
