// `edge.apiSessions` and `edge.sessions` events from the committed changes of API sessions and sessions (upstream
// events/dispatcher_api_session.go and dispatcher_session.go listen to the same stores' creates and deletes).
import { EntityTypes } from './entity-types.js';
import type { ApiSessionEvent, EntityChangeEvent, SessionEvent } from './event-types.js';

const text = (value: unknown) => (typeof value === 'string' ? value : '');

/** The session event a committed entity change stands for, if any. */
export function edgeSessionEvent(change: EntityChangeEvent): ApiSessionEvent | SessionEvent | undefined {
  if (change.eventType !== 'created' && change.eventType !== 'deleted') return undefined;
  const state = change.eventType === 'created' ? change.finalState : change.initialState;
  if (!state) return undefined;
  if (change.entityType === EntityTypes.apiSessions)
    return {
      namespace: 'edge.apiSessions',
      event_type: change.eventType,
      id: text(state.id),
      timestamp: change.timestamp,
      token: text(state.token),
      identity_id: text(state.identityId),
      ip_address: text(state.ipAddress),
    };
  if (change.entityType === EntityTypes.sessions)
    return {
      namespace: 'edge.sessions',
      event_type: change.eventType,
      session_type: text(state.type),
      id: text(state.id),
      timestamp: change.timestamp,
      token: text(state.token),
      api_session_id: text(state.apiSessionId),
      // upstream's sessionDeleted leaves the identity out.
      identity_id: change.eventType === 'created' ? text(state.identityId) : '',
      service_id: text(state.serviceId),
    };
  return undefined;
}
