// `edge.apiSessions` and `edge.sessions` events from the committed changes of API sessions and sessions (upstream
// events/dispatcher_api_session.go and dispatcher_session.go listen to the same stores' creates and deletes).
import { EntityTypes } from './entity-types.js';
import { sessionsOfApiSessions, type SessionRow } from '../store/queries/sessions.js';
import type { ApiSessionRow } from '../store/queries/api-sessions.js';
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

const parseJson = (text: string): unknown => JSON.parse(text);

/** An API session row in the entity's field names, as its changes are recorded (events/entity-change-log.ts). */
export function apiSessionState(row: ApiSessionRow): Record<string, unknown> {
  return {
    id: row.id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    tags: parseJson(row.tags),
    isSystem: row.is_system === 1,
    token: row.token,
    identityId: row.identity_id,
    authenticatorId: row.authenticator_id,
    ipAddress: row.ip_address,
    lastActivityAt: row.last_activity_at,
    configTypes: row.config_types === null ? null : parseJson(row.config_types),
    isMfaRequired: row.is_mfa_required === 1,
    isMfaComplete: row.is_mfa_complete === 1,
  };
}

/**
 * Records API sessions about to be deleted (a disabled identity's, a logout's) with the sessions that end with them,
 * in the deleting transaction and before the delete (which cascades to the sessions).
 */
export async function recordApiSessionsEnding(tx: Db, rows: readonly ApiSessionRow[]): Promise<void> {
  await recordSessionsEnded(
    tx,
    await sessionsOfApiSessions(
      tx,
      rows.map((row) => row.id),
    ),
  );
  for (const row of rows)
    await recordEntityChange(tx, {
      changeType: 'deleted',
      entityType: EntityTypes.apiSessions,
      entityId: row.id,
      before: apiSessionState(row),
    });
}
