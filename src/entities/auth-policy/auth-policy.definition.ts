// Auth policies: which primary login methods an identity may use, its password rules, and its second factors.
import { boolean, defineEntity, integer, stringSet, text } from '../../crud/define-entity.js';
import { authPolicyRules } from './auth-policy.rules.js';

/**
 * Dotted names are the nested REST fields (`primary.updb.allowed`) and the public filter symbols. The fallbacks
 * are upstream's persisted defaults; the contract requires every inner field on create and PUT, so through the
 * API they fill in only `secondary.requireExtJwtSigner` (and serve any internal create).
 */
export const authPolicy = defineEntity({
  type: 'authPolicy',
  path: 'auth-policies',
  table: 'auth_policies',
  idKind: 'shortId',
  fields: {
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
  },
  rules: authPolicyRules,
});
