// An authenticator's stored fields, declared apart from its definition so that its rules read their types.
import { text, type ValuesOf } from '../../crud/define-entity.js';

export const authenticatorFields = {
  method: text({ writable: 'create', required: true }),
  identityId: text({ filter: 'identity', writable: 'create', required: true }),
  // Full bodies send the other method's field as "": stored as none, so "" never collides in the unique index.
  username: text({ unique: true, filter: 'updbUsername', blankIsUnset: true }),
  certPem: text({ blankIsUnset: true }),
  fingerprint: text({ column: 'cert_fingerprint', unique: true, filter: 'certFingerprint', writable: 'never' }),
  // Secrets: never rendered, never filterable (upstream exposes updbPassword / updbSalt as filter symbols).
  passwordHash: text({ filter: false, output: false, writable: 'never' }),
  passwordSalt: text({ filter: false, output: false, writable: 'never' }),
};

export type Authenticator = ValuesOf<typeof authenticatorFields>;
