// API sessions as the management API lists them (created by authenticate, never through this entity).
import { boolean, defineEntity, json, text, timestamp } from '../../crud/define-entity.js';
import { apiSessionExtras } from '../../auth/api-session-detail.js';
import { recordSessionsEnded } from '../../events/edge-session-events.js';
import { sessionsOfApiSessions } from '../../store/queries/sessions.js';

const apiSessionFields = {
  token: text({ unique: true, writable: 'never' }),
  identityId: text({ filter: 'identity', writable: 'never', required: true }),
  authenticatorId: text({ filter: 'authenticator', writable: 'never' }),
  ipAddress: text({ writable: 'never' }),
  lastActivityAt: timestamp({ writable: 'never', required: true }),
  configTypes: json({ writable: 'never' }),
  isMfaRequired: boolean({ filter: false, writable: 'never' }),
  isMfaComplete: boolean({ filter: false, writable: 'never' }),
};

export const apiSession = defineEntity({
  type: 'apiSession',
  path: 'api-sessions',
  table: 'api_sessions',
  idKind: 'cuid',
  fields: apiSessionFields,
  links: (session) => ({ sessions: `./api-sessions/${session.id}/sessions` }),
  rules: {
    // Its sessions end with it (the database cascades): their changes are recorded first (issue 31).
    async beforeDelete({ tx }, existing) {
      await recordSessionsEnded(tx, await sessionsOfApiSessions(tx, [existing.id]));
    },
    async extend({ db, deps, caller }, sessions) {
      const extras = await apiSessionExtras(
        db,
        deps,
        sessions.map((s) => ({ id: s.id, identityId: s.identityId, lastActivityAt: s.lastActivityAt })),
      );
      return sessions.map((session, index) => ({
        ...extras[index],
        configTypes: session.configTypes ?? [],
        // A token is a bearer credential: upstream shows every session's token to admins; we show only the
        // caller's own, so listing sessions never hands out the means to act as someone else.
        token: session.id === caller?.session?.apiSessionId ? session.token : '',
      }));
    },
  },
});
