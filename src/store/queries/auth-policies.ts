// Auth policies as logins read them (an identity's policy with its allowed signers, its password rules), and the
// references that keep a policy from going.
import { typed } from '../connection.js';
import type { Db } from '../store.js';

export async function authPolicyExists(db: Db, id: string): Promise<boolean> {
  return (await typed(db).selectFrom('auth_policies').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}

/** The identities that use a policy, by id. */
export async function identitiesUsingAuthPolicy(db: Db, policyId: string): Promise<string[]> {
  const rows = await typed(db).selectFrom('identities').select('id').where('auth_policy_id', '=', policyId).orderBy('id').execute();
  return rows.map((row) => row.id);
}

/** The policies that name a signer: as an allowed primary signer or as the required secondary one, by id. */
export async function authPoliciesNamingSigner(db: Db, signerId: string): Promise<string[]> {
  const rows = await typed(db)
    .selectFrom('auth_policies')
    .select('id')
    .where((eb) =>
      eb.or([
        eb('secondary_require_ext_jwt_signer', '=', signerId),
        eb('id', 'in', eb.selectFrom('auth_policy_primary_ext_jwt_allowed_signers').select('entity_id').where('value', '=', signerId)),
      ]),
    )
    .orderBy('id')
    .execute();
  return rows.map((row) => row.id);
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
  const signers = await typed(db).selectFrom('auth_policy_primary_ext_jwt_allowed_signers').select('value').where('entity_id', '=', row.policy_id).execute();
  return { ...row, allowedSigners: signers.map((signer) => signer.value) };
}

/** The password rules of an identity's auth policy; undefined when the identity does not exist. */
export async function identityPasswordRules(db: Db, identityId: string) {
  return typed(db)
    .selectFrom('identities as i')
    .innerJoin('auth_policies as p', 'p.id', 'i.auth_policy_id')
    .select(['p.primary_updb_min_password_length', 'p.primary_updb_require_mixed_case', 'p.primary_updb_require_number_char', 'p.primary_updb_require_special_char'])
    .where('i.id', '=', identityId)
    .executeTakeFirst();
}
