// Authenticators: how an identity proves itself — a username and password (updb) or a certificate (cert).
import { defineEntity } from '../../crud/define-entity.js';
import { authenticatorFields } from './authenticator.fields.js';
import { authenticatorRules } from './authenticator.rules.js';

export const authenticator = defineEntity({
  type: 'authenticator',
  path: 'authenticators',
  table: 'authenticators',
  idKind: 'base62',
  fields: authenticatorFields,
  // Upstream's singular-looking target under a plural key (docs/reference/http-conventions.md §6.2).
  links: (entity) => ({ identities: `./identities/${String(entity.identityId)}` }),
  rules: authenticatorRules,
});
