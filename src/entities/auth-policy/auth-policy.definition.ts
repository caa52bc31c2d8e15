// Auth policies: which primary login methods an identity may use, its password rules, and its second factors.
import { defineEntity } from '../../crud/define-entity.js';
import { authPolicyFields } from './auth-policy.fields.js';
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
  fields: authPolicyFields,
  rules: authPolicyRules,
});
