// Auth policy rules: upstream's stored-value limits, external JWT signer references, what may not be deleted.
import { ApiError } from '../../errors/api-error.js';
import type { EntityRules } from '../../crud/entity-rules.js';
import type { AuthPolicy } from './auth-policy.fields.js';
import { goValue } from '../../lib/go-format.js';
import { setPath } from '../../lib/object-path.js';
import { firstIdentityUsingAuthPolicy } from '../../store/queries/auth-policies.js';
import { existingSigners } from '../../store/queries/external-jwt-signers.js';
import type { Db } from '../../store/store.js';
import { omitEmpty } from '../../lib/omit-empty.js';

export const DEFAULT_AUTH_POLICY_ID = 'default';

const ALLOWED_SIGNERS = 'primary.extJwt.allowedSigners';
const REQUIRED_SIGNER = 'secondary.requireExtJwtSigner';

/** Upstream's persist step: a password minimum below 5 is raised to 5; a negative limit means "none", 0. */
function clampLimits(policy: AuthPolicy): void {
  policy['primary.updb.minPasswordLength'] = Math.max(5, policy['primary.updb.minPasswordLength']);
  policy['primary.updb.maxAttempts'] = Math.max(0, policy['primary.updb.maxAttempts']);
  policy['primary.updb.lockoutDurationMinutes'] = Math.max(0, policy['primary.updb.lockoutDurationMinutes']);
}

function signerNotFound(field: string, id: string): ApiError {
  return new ApiError('NOT_FOUND', {
    field,
    reason: 'no externalJwtSigner found with the given id',
    value: goValue(id),
  });
}

/**
 * Every signer a policy names must exist: 404 with a field cause, the required signer first as upstream checks.
 * The fields carry their REST names; upstream reports its internal ones (`allowedExtJwtSigners[i]`).
 */
async function requireSigners(tx: Db, policy: AuthPolicy, changed: ReadonlySet<string>): Promise<void> {
  const required = changed.has(REQUIRED_SIGNER) ? policy[REQUIRED_SIGNER] : null;
  const allowed = changed.has(ALLOWED_SIGNERS) ? (policy[ALLOWED_SIGNERS] ?? []) : [];
  const found = await existingSigners(tx, [...new Set([...allowed, ...(required === null ? [] : [required])])]);
  if (required !== null && !found.has(required)) throw signerNotFound(REQUIRED_SIGNER, required);
  allowed.forEach((id, index) => {
    if (!found.has(id)) throw signerNotFound(`${ALLOWED_SIGNERS}[${index}]`, id);
  });
}

/** The REST `primary` object; the built-in policy's signer list is NULL in the database, the model wants []. */
function primaryOf(policy: AuthPolicy): unknown {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(policy)) if (name.startsWith('primary.')) setPath(out, name, value);
  setPath(out, ALLOWED_SIGNERS, policy[ALLOWED_SIGNERS] ?? []);
  return out.primary;
}

/** The REST `secondary` object: without a required signer upstream leaves the field out (omitempty). */
function secondaryOf(policy: AuthPolicy): unknown {
  const signer = policy[REQUIRED_SIGNER];
  return { requireTotp: policy['secondary.requireTotp'], ...omitEmpty({ requireExtJwtSigner: signer }) };
}

export const authPolicyRules: EntityRules<AuthPolicy> = {
  async validate({ tx }, change) {
    const policy = change.after;
    clampLimits(policy);
    await requireSigners(tx, policy, change.changed);
  },

  /**
   * Identities' references are reported as upstream's foreign key reports them. The default policy is refused even
   * when no identity uses it: upstream keeps it only because the default admin does, and logins fall back to it.
   */
  async beforeDelete({ tx }, existing) {
    const user = await firstIdentityUsingAuthPolicy(tx, existing.id);
    if (user) throw ApiError.referencedByKey('authPolicy', 'authPolicyId', 'identity', user);
    if (existing.id === DEFAULT_AUTH_POLICY_ID) {
      throw ApiError.withMessage('CAN_NOT_DELETE_REFERENCED_ENTITY', 'the default auth policy cannot be deleted');
    }
  },

  extend(_context, policies) {
    return Promise.resolve(policies.map((policy) => ({ primary: primaryOf(policy), secondary: secondaryOf(policy) })));
  },
};
