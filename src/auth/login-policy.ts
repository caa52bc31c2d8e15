// What an identity's auth policy allows at login (docs/reference/pki-enrollment-auth.md §7), checked in one place for
// every primary method: the identity is enabled, the method is allowed, and every secondary requirement is one this
// controller can check.
import { ApiError } from '../errors/api-error.js';
import { identityLoginPolicy, type IdentityLoginRow } from '../store/queries/auth-policies.js';
import type { Db } from '../store/store.js';
import { disabledStateOf, isIdentityDisabled, type DisabledState } from './identity-disable.js';

export type PrimaryMethod = 'password' | 'cert' | 'ext-jwt';

export interface LoginPolicy {
  identityId: string;
  isAdmin: boolean;
  disabled: DisabledState;
  certAllowed: boolean;
  allowExpiredCerts: boolean;
  updbAllowed: boolean;
  /** Consecutive password failures that lock the identity; 0: never. */
  maxAttempts: number;
  /** How long a lockout lasts; 0: until an admin enables the identity. */
  lockoutDurationMinutes: number;
  extJwtAllowed: boolean;
  /** Signers a primary ext-jwt login may come from; empty: any enabled signer. */
  allowedSigners: string[];
  requireTotp: boolean;
  requiredExtJwtSigner: string | null;
}

/** What a primary login method proves: who it is, and how the session should remember it. */
export interface PrimaryCredential {
  identityId: string;
  /** Upstream's authenticator id: the authenticator's, `internal` (certificate by external id), `extJwtId:<signer>`. */
  authenticatorId: string;
  /** ext-jwt: the signer whose JWT was accepted. */
  signerId?: string;
  /** A method's own policy rule beyond the method being allowed (certificate login: `allowExpiredCerts`). */
  satisfies?: (policy: LoginPolicy, now: Date) => boolean;
  /** Work inside the transaction that creates the API session (certificate login binds its certificate to it). */
  record?: (tx: Db, apiSessionId: string) => Promise<void>;
}

/**
 * Every failure at login is the same 401 INVALID_AUTH, whatever went wrong (docs/reference/pki-enrollment-auth.md
 * §4.7).
 */
export const invalidAuth = () => new ApiError('INVALID_AUTH');

/** What the transaction creating an API session decided on, besides the policy. */
export interface AllowedLogin {
  policy: LoginPolicy;
  /** The identity as its reference in the answer shows it. */
  identity: { id: string; name: string; authPolicyId: string };
  /** An identity has MFA once its enrollment is verified; an unverified one changes nothing at login. */
  hasVerifiedMfa: boolean;
  /** The client info stored now (JSON text each), which the login compares with what it was sent. */
  clientInfo: { envInfo: string | null; sdkInfo: string | null };
}

export async function loginPolicyOf(db: Db, identityId: string): Promise<LoginPolicy | undefined> {
  const row = await identityLoginPolicy(db, identityId);
  return row && policyOf(row);
}

function policyOf(row: IdentityLoginRow): LoginPolicy {
  return {
    identityId: row.id,
    isAdmin: row.is_admin === 1 || row.is_default_admin === 1,
    disabled: disabledStateOf(row),
    certAllowed: row.primary_cert_allowed === 1,
    allowExpiredCerts: row.primary_cert_allow_expired_certs === 1,
    updbAllowed: row.primary_updb_allowed === 1,
    maxAttempts: Number(row.primary_updb_max_attempts),
    lockoutDurationMinutes: Number(row.primary_updb_lockout_duration_minutes),
    extJwtAllowed: row.primary_ext_jwt_allowed === 1,
    allowedSigners: row.allowedSigners,
    requireTotp: row.secondary_require_totp === 1,
    requiredExtJwtSigner: row.secondary_require_ext_jwt_signer || null,
  };
}

/** Whether the policy lets this primary method in (the ext-jwt signer named for `ext-jwt`). */
export function allowsPrimary(policy: LoginPolicy, method: PrimaryMethod, signerId?: string): boolean {
  switch (method) {
    case 'password':
      return policy.updbAllowed;
    case 'cert':
      return policy.certAllowed;
    case 'ext-jwt':
      return (
        policy.extJwtAllowed &&
        (policy.allowedSigners.length === 0 || (signerId !== undefined && policy.allowedSigners.includes(signerId)))
      );
  }
}

/**
 * The single check every login passes inside the transaction that creates its API session: the identity exists and
 * is enabled, the policy allows the method, and a required external JWT signer exists and is enabled — a
 * requirement nobody can satisfy refuses the login rather than leaving a session that can never complete.
 */
export async function requireLoginAllowed(
  db: Db,
  identityId: string,
  method: PrimaryMethod,
  now: Date,
  signerId?: string,
): Promise<AllowedLogin> {
  // One read answers every check below (and the MFA state the session records); the checks keep their order.
  const row = await identityLoginPolicy(db, identityId);
  const policy = row && policyOf(row);
  if (!row || !policy || isIdentityDisabled(policy.disabled, now) || !allowsPrimary(policy, method, signerId))
    throw invalidAuth();
  if (policy.requiredExtJwtSigner !== null && row.required_signer_enabled !== 1) throw invalidAuth();
  return {
    policy,
    identity: { id: row.id, name: row.name, authPolicyId: row.auth_policy_id },
    hasVerifiedMfa: row.mfa_verified === 1,
    clientInfo: { envInfo: row.env_info, sdkInfo: row.sdk_info },
  };
}
