// Auth policies as logins read them (an identity's policy with its allowed signers, its password rules), and the
// references that keep a policy from going.
import { typed } from '../connection.js';
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
export async function identityLoginPolicy(db: Db, identityId: string) {
  const row = await typed(db)
    .selectFrom('identities as i')
    .innerJoin('auth_policies as p', 'p.id', 'i.auth_policy_id')
    .select([
      'i.id',
      'i.is_admin',
      'i.is_default_admin',
      'i.disabled_at',
      'i.disabled_until',
      'p.id as policy_id',
      'p.primary_cert_allowed',
      'p.primary_cert_allow_expired_certs',
      'p.primary_updb_allowed',
      'p.primary_updb_max_attempts',
      'p.primary_updb_lockout_duration_minutes',
      'p.primary_ext_jwt_allowed',
      'p.secondary_require_totp',
      'p.secondary_require_ext_jwt_signer',
    ])
    .where('i.id', '=', identityId)
    .executeTakeFirst();
  if (!row) return undefined;
  const signers = await typed(db)
    .selectFrom('auth_policy_primary_ext_jwt_allowed_signers')
    .select('value')
    .where('entity_id', '=', row.policy_id)
    .execute();
  return { ...row, allowedSigners: signers.map((signer) => signer.value) };
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
