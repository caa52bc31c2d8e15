// Sessions: an identity's leave, through one API session, to dial or bind one service over the edge routers both
// are granted. Created by `POST /sessions` (create-session.ts), never through the generic create.
import { defineEntity, json, text } from '../../crud/define-entity.js';
import { routePathHref, sessionRules } from './session.rules.js';

export const session = defineEntity({
  type: 'session',
  path: 'sessions',
  table: 'sessions',
  idKind: 'cuid',
  // Rendered by the rules in upstream's field order; the symbols are upstream's public ones (`service`, `token`,
  // `apiSession`, `type`), plus `identity` and `apiSession.identity`, which the session stores itself.
  fields: {
    serviceId: text({ column: 'service_id', filter: 'service', writable: 'never', output: false }),
    token: text({ unique: true, writable: 'never', output: false }),
    apiSessionId: text({ column: 'api_session_id', filter: 'apiSession', writable: 'never', output: false }),
    type: text({ writable: 'never', output: false }),
    identityId: text({ column: 'identity_id', filter: 'identity', writable: 'never', output: false }),
    servicePolicies: json({ writable: 'never', output: false }),
  },
  symbols: {
    'apiSession.identity': { kind: 'column', type: 'string', column: 'identity_id' },
  },
  links: (entity) => ({ 'route-path': routePathHref(String(entity.id)) }),
  rules: sessionRules,
});
