// The An auth policy's stored fields, declared apart from its definition so that its rules read their types.
import { boolean, integer, stringSet, text, type ValuesOf } from '../../crud/define-entity.js';

export const authPolicyFields = {
  name: text({ unique: true }),
  'primary.cert.allowed': boolean({ fallback: () => true }),
  'primary.cert.allowExpiredCerts': boolean({ fallback: () => true }),
  'primary.updb.allowed': boolean({ fallback: () => true }),
  'primary.updb.minPasswordLength': integer({ fallback: () => 5 }),
  'primary.updb.requireSpecialChar': boolean(),
  'primary.updb.requireNumberChar': boolean(),
  'primary.updb.requireMixedCase': boolean(),
  'primary.updb.maxAttempts': integer({ fallback: () => 5 }),
  'primary.updb.lockoutDurationMinutes': integer({ filter: false, fallback: () => 0 }),
  'primary.extJwt.allowed': boolean({ fallback: () => true }),
  // A set of signer ids whose side table references the signers (so a named signer cannot be deleted); upstream
  // does not make it a public symbol.
  'primary.extJwt.allowedSigners': stringSet({ filter: false }),
  'secondary.requireTotp': boolean(),
  // A blank signer id means none: upstream refuses "" on create (404) but stores it on update, so we read it as null.
  'secondary.requireExtJwtSigner': text({ blankIsUnset: true }),
};

export type AuthPolicy = ValuesOf<typeof authPolicyFields>;
