// What MFA posture checks read (docs/reference/pki-enrollment-auth.md §6.4): whether an identity has verified TOTP MFA,
// and when one of its API sessions last passed it (by `POST /authenticate/mfa` or `POST /current-identity/mfa/verify`).
import { apiSessionMfaCompletedAt } from '../../store/queries/api-sessions.js';
import { mfaOf } from '../../store/queries/mfa.js';
import type { Db } from '../../store/store.js';

export interface MfaStatus {
  /** The identity has an MFA enrollment and it is verified (what identity details call `isMfaEnabled`). */
  isMfaEnabled: boolean;
  /**
   * When this API session last passed MFA, or undefined if it never has (or the identity's MFA was removed since).
   * Undefined too when the session does not belong to the identity.
   */
  passedAt: Date | undefined;
}

/** Two index probes; usable inside any read or transaction. */
export async function readMfaStatus(db: Db, identityId: string, apiSessionId: string): Promise<MfaStatus> {
  const [mfa, passedAt] = await Promise.all([
    mfaOf(db, identityId),
    apiSessionMfaCompletedAt(db, apiSessionId, identityId),
  ]);
  return { isMfaEnabled: mfa?.is_verified === 1, passedAt: passedAt ? new Date(passedAt) : undefined };
}
