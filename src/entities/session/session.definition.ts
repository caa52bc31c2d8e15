// Sessions: an identity's leave, through one API session, to dial or bind one service over the edge routers both
// are granted. Created by `POST /sessions` (create-session.ts), never through the generic create.
import { defineEntity } from '../../crud/define-entity.js';
import { sessionFields } from './session.fields.js';
import { routePathHref, sessionRules } from './session.rules.js';

export const session = defineEntity({
  type: 'session',
  path: 'sessions',
  table: 'sessions',
  idKind: 'cuid',
  fields: sessionFields,
  // `apiSession.identity` as upstream's symbol, from the identity the session stores itself.
  symbols: {
    'apiSession.identity': { kind: 'column', type: 'string', column: 'identity_id' },
  },
  links: (entity) => ({ 'route-path': routePathHref(entity.id) }),
  rules: sessionRules,
});
