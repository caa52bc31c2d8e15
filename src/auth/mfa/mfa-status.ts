// What MFA posture checks read (reference §6.4): whether an identity has verified TOTP MFA, and when one of its API
// sessions last passed it (by `POST /authenticate/mfa` or `POST /current-identity/mfa/verify`).
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
  const [mfa, session] = await Promise.all([
    db.selectFrom('mfas').select('is_verified').where('identity_id', '=', identityId).executeTakeFirst(),
    db.selectFrom('api_sessions').select('mfa_completed_at').where('id', '=', apiSessionId).where('identity_id', '=', identityId).executeTakeFirst(),
  ]);
  const passedAt = session?.mfa_completed_at as string | null | undefined;
  return { isMfaEnabled: mfa?.is_verified === 1, passedAt: passedAt ? new Date(passedAt) : undefined };
}
