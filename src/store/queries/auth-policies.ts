// Auth policies as logins read them (an identity's policy with its allowed signers, its password rules), and the
// references that keep a policy from going.
import { sql } from 'kysely';
import { dialectOf, typed } from '../connection.js';
import { preparedQuery } from '../prepared.js';
import { parseJsonValue } from '../../lib/json-value.js';
import { isJsonObject } from '../../lib/object-path.js';
import type { Db } from '../store.js';

export async function authPolicyExists(db: Db, id: string): Promise<boolean> {
  return (
    (await typed(db).selectFrom('auth_policies').select('id').where('id', '=', id).executeTakeFirst()) !== undefined
  );
}

/** The identity with the lowest id that uses a policy, if any. */
export async function firstIdentityUsingAuthPolicy(db: Db, policyId: string): Promise<string | undefined> {
  const row = await typed(db)
    .selectFrom('identities')
    .select('id')
    .where('auth_policy_id', '=', policyId)
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  return row?.id;
}

/** The policies that allow a signer for primary logins, by id. */
export async function authPoliciesAllowingSigner(db: Db, signerId: string): Promise<string[]> {
  const rows = await typed(db)
    .selectFrom('auth_policy_primary_ext_jwt_allowed_signers')
    .select('entity_id')
    .where('value', '=', signerId)
    .orderBy('entity_id')
    .execute();
  return rows.map((row) => row.entity_id);
}

/** The policy with the lowest id that requires a signer as its secondary factor, if any. */
export async function firstAuthPolicyRequiringSigner(db: Db, signerId: string): Promise<string | undefined> {
  const row = await typed(db)
    .selectFrom('auth_policies')
    .select('id')
    .where('secondary_require_ext_jwt_signer', '=', signerId)
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  return row?.id;
}

/** An identity with what its auth policy says about logging in (stored 0/1 flags as they are). */
export interface IdentityLoginRow {
  id: string;
  name: string;
  auth_policy_id: string;
  is_admin: number;
  is_default_admin: number;
  disabled_at: string | null;
  disabled_until: string | null;
  policy_id: string;
  primary_cert_allowed: number;
  primary_cert_allow_expired_certs: number;
  primary_updb_allowed: number;
  primary_updb_max_attempts: number;
  primary_updb_lockout_duration_minutes: number;
  primary_ext_jwt_allowed: number;
  secondary_require_ext_jwt_signer: string | null;
  secondary_require_totp: number;
  /** The policy's signers for primary ext-jwt logins, by value. */
  allowedSigners: string[];
  /** The policy's required secondary signer's `enabled` (null: none required, or no such signer). */
  required_signer_enabled: number | null;
  /** The identity's MFA record's `is_verified` (null: it has none). */
  mfa_verified: number | null;
  /** The client info its last login stored (JSON text each, null when none was sent): a login writes it only when it differs. */
  env_info: string | null;
  sdk_info: string | null;
}

interface LoginRowWithLists extends Omit<IdentityLoginRow, 'allowedSigners'> {
  allowed_signers: string;
}

// One statement (issue 33: a login's reads in one round trip on PostgreSQL, as session create's): the identity, its
// policy, the policy's allowed signers (a JSON array), its required signer's state, the identity's MFA record's and
// the client info the login compares with what it was sent.
const selectIdentityLogin = preparedQuery(
  (q, identityId: string) => sql<LoginRowWithLists>`SELECT i.id, i.name, i.auth_policy_id, i.is_admin,
      i.is_default_admin, i.disabled_at, i.disabled_until, i.env_info, i.sdk_info, p.id AS policy_id, p.primary_cert_allowed,
      p.primary_cert_allow_expired_certs, p.primary_updb_allowed, p.primary_updb_max_attempts,
      p.primary_updb_lockout_duration_minutes, p.primary_ext_jwt_allowed, p.secondary_require_ext_jwt_signer,
      p.secondary_require_totp,
      (SELECT ${dialectOf(q).jsonRows({ value: sql`a.value` }, sql`a.value`)}
        FROM auth_policy_primary_ext_jwt_allowed_signers a WHERE a.entity_id = p.id) AS allowed_signers,
      (SELECT s.enabled FROM external_jwt_signers s WHERE s.id = p.secondary_require_ext_jwt_signer) AS required_signer_enabled,
      (SELECT m.is_verified FROM mfas m WHERE m.identity_id = i.id) AS mfa_verified
    FROM identities i JOIN auth_policies p ON p.id = i.auth_policy_id
    WHERE i.id = ${identityId}`,
);

/** What a login decides on about the identity, in one statement; undefined when the identity does not exist. */
export async function identityLoginPolicy(db: Db, identityId: string): Promise<IdentityLoginRow | undefined> {
  const [row] = await selectIdentityLogin(db, identityId);
  if (!row) return undefined;
  const { allowed_signers: signers, ...rest } = row;
  const entries = parseJsonValue(signers);
  const allowedSigners = (Array.isArray(entries) ? entries.filter(isJsonObject) : []).map((entry) =>
    String(entry.value),
  );
  return { ...rest, allowedSigners };
}

/** The password rules of an identity's auth policy; undefined when the identity does not exist. */
export async function identityPasswordRules(db: Db, identityId: string) {
  return typed(db)
    .selectFrom('identities as i')
    .innerJoin('auth_policies as p', 'p.id', 'i.auth_policy_id')
    .select([
      'p.primary_updb_min_password_length',
      'p.primary_updb_require_mixed_case',
      'p.primary_updb_require_number_char',
      'p.primary_updb_require_special_char',
    ])
    .where('i.id', '=', identityId)
    .executeTakeFirst();
}
