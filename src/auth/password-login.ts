// `POST /authenticate?method=password` (docs/reference/pki-enrollment-auth.md §4.2, §5.3): throttled per username and
// source address, then the updb authenticator's password, with the auth policy's lockout after `maxAttempts`
// consecutive failures.
import { ApiError } from '../errors/api-error.js';
import { clearPasswordFailures, countPasswordFailure } from '../store/queries/authenticators.js';
import { passwordCandidate } from '../store/queries/password-login.js';
import type { ThrottleKeys } from './login-throttle.js';
import type { OperationContext } from '../http/operation.js';
import { writeAreas } from '../store/store.js';
import { disabledStateOf, isIdentityDisabled } from './identity-disable.js';
import { disableIdentityIn } from './identity-disable-writes.js';
import { invalidAuth } from './login-policy.js';
import { hashPassword, verifyPassword } from './password.js';

export interface PasswordCredential {
  identityId: string;
  authenticatorId: string;
}

/** Hashing something even for an unknown user keeps the answer time from telling which usernames exist. */
const decoy = hashPassword('decoy-password');

interface Candidate {
  authenticatorId: string;
  identityId: string;
  hash: string;
  salt: string;
  failedAttempts: number;
  /** Disabled, or the policy refuses passwords: the password is still checked, but cannot succeed. */
  refused: boolean;
  maxAttempts: number;
  lockoutMinutes: number;
}

/** The throttle's decision first (429 before anything else), then the username's candidate: read together. */
async function admitAndFindCandidate(
  context: OperationContext,
  username: string,
  keys: ThrottleKeys,
): Promise<Candidate | undefined> {
  const { deps } = context;
  const throttle = deps.loginThrottle;
  const read = throttle.windowsToRead(keys);
  const { candidate: row, windows } = await deps.store.read((db) =>
    passwordCandidate(db, username, read.keys, read.now),
  );
  throttle.admitWith(keys, windows, context.reply);
  if (!row?.password_hash || !row.password_salt) return undefined;
  return {
    authenticatorId: row.id,
    identityId: row.identity_id,
    hash: row.password_hash,
    salt: row.password_salt,
    failedAttempts: Number(row.failed_attempts),
    refused: row.primary_updb_allowed !== 1 || isIdentityDisabled(disabledStateOf(row), deps.clock()),
    maxAttempts: Number(row.primary_updb_max_attempts),
    lockoutMinutes: Number(row.primary_updb_lockout_duration_minutes),
  };
}

/**
 * One more consecutive failure; the `maxAttempts`-th locks the identity (disabled for the policy's lockout duration,
 * its sessions ended) and starts the count again. Counted in the database, so a restart keeps a lockout.
 */
async function countFailure(context: OperationContext, candidate: Candidate): Promise<void> {
  const { deps } = context;
  if (candidate.maxAttempts <= 0) return;
  // In the identity's write area, not the strict turn (issue 26): the count and the lockout are the identity's own
  // (its authenticator, its disabled state and API sessions), so a password guesser at one account holds back no
  // other identity's login, session create or posture report, and nothing strict.
  const ended = await deps.store.transaction(
    async (tx) => {
      if ((await countPasswordFailure(tx, candidate.authenticatorId)) < candidate.maxAttempts) return [];
      await clearPasswordFailures(tx, candidate.authenticatorId);
      return disableIdentityIn(tx, deps, candidate.identityId, candidate.lockoutMinutes);
    },
    { touches: [writeAreas.identity(candidate.identityId)] },
  );
  for (const id of ended) deps.apiSessions.forget(id);
}

export async function checkPasswordLogin(
  context: OperationContext,
  username: unknown,
  password: unknown,
): Promise<PasswordCredential> {
  if (typeof username !== 'string' || typeof password !== 'string' || !username || !password) {
    throw ApiError.withMessage('COULD_NOT_VALIDATE', 'username and password fields are required');
  }
  const { deps } = context;
  const throttle = deps.loginThrottle;
  const keys = throttle.passwordKeys(username, context.caller.ip);
  // Decided before and after the hash (login-throttle.ts), so logins of one account hash side by side.
  const candidate = await admitAndFindCandidate(context, username, keys);
  const matches = await verifyPassword(password, candidate ?? (await decoy));
  if (!candidate || !matches || candidate.refused) {
    await throttle.failed(keys, context.reply);
    if (candidate && !candidate.refused) await countFailure(context, candidate);
    throw invalidAuth();
  }
  await throttle.succeeded(keys, context.reply);
  if (candidate.failedAttempts > 0) {
    await deps.store.transaction((tx) => clearPasswordFailures(tx, candidate.authenticatorId), {
      touches: [writeAreas.identity(candidate.identityId)],
    });
  }
  return { identityId: candidate.identityId, authenticatorId: candidate.authenticatorId };
}
