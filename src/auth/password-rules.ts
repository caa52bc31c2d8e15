// The password rules of an identity's auth policy, checked wherever a password is set: updb enrollment, admin
// authenticator create and update, self-service change. Upstream v1.1.8 stores them but never enforces them
// (docs/reference/pki-enrollment-auth.md §5.2); its documents promise them, so we enforce them.
import { ApiError } from '../errors/api-error.js';
import { identityPasswordRules } from '../store/queries/auth-policies.js';
import type { Db } from '../store/store.js';

export interface PasswordRules {
  minLength: number;
  requireMixedCase: boolean;
  requireNumberChar: boolean;
  requireSpecialChar: boolean;
}

/** The contract's password schema (5–100 characters) bounds every policy: the longest password any login accepts. */
export const MAX_PASSWORD_LENGTH = 100;
const MIN_PASSWORD_LENGTH = 5;

/** Secrets are never echoed, not even in a field error. */
const MASKED = '******';

/** What an identity's passwords must satisfy; an identity without a readable policy gets the strictest floor. */
export async function passwordRulesFor(db: Db, identityId: string): Promise<PasswordRules> {
  const row = await identityPasswordRules(db, identityId);
  return {
    minLength: Math.max(MIN_PASSWORD_LENGTH, Number(row?.primary_updb_min_password_length ?? MIN_PASSWORD_LENGTH)),
    requireMixedCase: row?.primary_updb_require_mixed_case === 1,
    requireNumberChar: row?.primary_updb_require_number_char === 1,
    requireSpecialChar: row?.primary_updb_require_special_char === 1,
  };
}

/**
 * The password if it satisfies the rules; otherwise 400 COULD_NOT_VALIDATE on `field`, naming the first rule broken.
 */
export function checkPasswordRules(password: unknown, rules: PasswordRules, field = 'password'): string {
  const fail = (reason: string) =>
    ApiError.invalidField(field, reason, password === undefined || password === null ? password : MASKED);
  if (typeof password !== 'string') throw fail('password is required');
  // Characters, not UTF-16 units: a password of emoji is as long as it looks.
  const length = [...password].length;
  if (length < rules.minLength) throw fail(`password must be at least ${rules.minLength} characters`);
  if (length > MAX_PASSWORD_LENGTH) throw fail(`password must be at most ${MAX_PASSWORD_LENGTH} characters`);
  if (rules.requireMixedCase && !(/\p{Ll}/u.test(password) && /\p{Lu}/u.test(password))) {
    throw fail('password must contain both upper and lower case letters');
  }
  if (rules.requireNumberChar && !/\p{N}/u.test(password)) throw fail('password must contain a number');
  if (rules.requireSpecialChar && !/[^\p{L}\p{N}]/u.test(password))
    throw fail('password must contain a special character');
  return password;
}
