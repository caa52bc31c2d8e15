// Gathers what evaluating posture for one API session reads: the identity's reported data, the session's endpoint
// state, and its MFA state through the one MFA seam below.
import type { Db } from '../store/store.js';
import type { PostureView } from './check-evaluation.js';
import type { MfaInputs } from './mfa-posture.js';
import type { ReportedPosture } from './reported-posture.js';

export type MfaState = Pick<MfaInputs, 'isEnrolled' | 'passedAt' | 'sdk'>;

/** How posture learns an API session's MFA state; the controller passes `readMfaState` (tests may pass another). */
export type MfaStateReader = (db: Db, identityId: string, apiSessionId: string) => Promise<MfaState>;

/**
 * THE seam between posture and MFA: every MFA posture evaluation learns the identity's MFA state here and nowhere
 * else. MFA enrollment and `POST /authenticate/mfa` are not part of this branch, so no identity can have MFA and
 * the answer is always "not enrolled": every MFA check fails (fail closed). Wiring MFA in means answering
 * `isEnrolled` (TOTP enrolled and verified), `passedAt` (when this API session last passed MFA) and `sdk` (the
 * `sdkInfo` its client sent at login, for `ignoreLegacyEndpoints`) from the MFA tables, and calling
 * `PostureMonitor.mfaChanged` when an API session passes MFA or the identity's MFA is removed.
 */
export const readMfaState: MfaStateReader = () => Promise.resolve({ isEnrolled: false });

/** What posture evaluation reads: reported data and the MFA seam, as the posture monitor holds them. */
export interface PostureSources {
  reported: ReportedPosture;
  readMfaState: MfaStateReader;
}

export async function postureViewFor(db: Db, sources: PostureSources, identityId: string, apiSessionId: string, now: Date): Promise<PostureView> {
  const data = sources.reported.of(identityId);
  const state = data?.endpointStates.get(apiSessionId);
  const mfa = await sources.readMfaState(db, identityId, apiSessionId);
  return { data, now, mfa: { ...mfa, wokenAt: state?.wokenAt, unlockedAt: state?.unlockedAt } };
}
