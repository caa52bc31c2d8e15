// API sessions as the management API lists them (created by authenticate, never through this entity).
import { boolean, defineEntity, json, text, timestamp } from '../../crud/define-entity.js';
import { apiSessionExtras } from '../../auth/api-session-detail.js';

export const apiSession = defineEntity({
  type: 'apiSession',
  path: 'api-sessions',
  table: 'api_sessions',
  idKind: 'cuid',
  fields: {
    token: text({ unique: true, writable: 'never' }),
    identityId: text({ filter: 'identity', writable: 'never' }),
    authenticatorId: text({ filter: 'authenticator', writable: 'never' }),
    ipAddress: text({ writable: 'never' }),
    lastActivityAt: timestamp({ writable: 'never' }),
    configTypes: json({ writable: 'never' }),
    isMfaRequired: boolean({ filter: false, writable: 'never' }),
    isMfaComplete: boolean({ filter: false, writable: 'never' }),
  },
  links: (session) => ({ sessions: `./api-sessions/${String(session.id)}/sessions` }),
  rules: {
    async extend({ db, deps, caller }, sessions) {
      const extras = await apiSessionExtras(
        db,
        deps,
        sessions.map((s) => ({ id: s.id, identityId: s.identityId as string, lastActivityAt: s.lastActivityAt as string })),
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
