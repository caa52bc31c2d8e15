// Authenticators: how an identity proves itself — a username and password (updb) or a certificate (cert).
import { defineEntity, text } from '../../crud/define-entity.js';
import { authenticatorRules } from './authenticator.rules.js';

export const authenticator = defineEntity({
  type: 'authenticator',
  path: 'authenticators',
  table: 'authenticators',
  idKind: 'base62',
  fields: {
    method: text({ writable: 'create' }),
    identityId: text({ filter: 'identity', writable: 'create' }),
    // Full bodies send the other method's field as "": stored as none, so "" never collides in the unique index.
    username: text({ unique: true, filter: 'updbUsername', blankIsUnset: true }),
    certPem: text({ blankIsUnset: true }),
    fingerprint: text({ column: 'cert_fingerprint', unique: true, filter: 'certFingerprint', writable: 'never' }),
    // Secrets: never rendered, never filterable (upstream exposes updbPassword / updbSalt as filter symbols).
    passwordHash: text({ filter: false, output: false, writable: 'never' }),
    passwordSalt: text({ filter: false, output: false, writable: 'never' }),
  },
  // Upstream's singular-looking target under a plural key (reference §6.2).
  links: (entity) => ({ identities: `./identities/${String(entity.identityId)}` }),
  rules: authenticatorRules,
});
