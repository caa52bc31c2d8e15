// Gathers what evaluating posture for one API session reads: the identity's reported data, the session's endpoint
// state, and its MFA state through the one MFA seam below.
import { readMfaStatus } from '../auth/mfa/mfa-status.js';
import { identitySdkInfo } from '../store/queries/identities.js';
import type { Db } from '../store/store.js';
import type { PostureCheckRecord, PostureView } from './check-evaluation.js';
import type { MfaInputs } from './mfa-posture.js';
import { loadPosture } from './reported-posture.js';
import { parseJsonValue } from '../lib/json-value.js';
import { isJsonObject } from '../lib/object-path.js';

export type MfaState = Pick<MfaInputs, 'isEnrolled' | 'passedAt' | 'sdk'>;

/** How posture learns an API session's MFA state; the controller passes `readMfaState` (tests may pass another). */
export type MfaStateReader = (db: Db, identityId: string, apiSessionId: string) => Promise<MfaState>;

/**
 * THE seam between posture and MFA: every MFA posture evaluation learns the API session's MFA state here and
 * nowhere else — whether the identity has verified TOTP MFA, when this API session last passed it, and the
 * `sdkInfo` its client sent at login (for `ignoreLegacyEndpoints`). MFA operations call
 * `PostureMonitor.postureChanged` when a session passes MFA or the identity's MFA is removed.
 */
export const readMfaState: MfaStateReader = async (db, identityId, apiSessionId) => {
  const [status, sdkInfo] = await Promise.all([
    readMfaStatus(db, identityId, apiSessionId),
    identitySdkInfo(db, identityId),
  ]);
  const sdk = parseSdkInfo(sdkInfo);
  return { isEnrolled: status.isMfaEnabled, passedAt: status.passedAt, ...(sdk ? { sdk } : {}) };
};

function parseSdkInfo(text: string | null | undefined): MfaState['sdk'] {
  if (!text) return undefined;
  const info = parseJsonValue(text);
  if (!isJsonObject(info)) return undefined;
  return {
    ...(typeof info.type === 'string' ? { type: info.type } : {}),
    ...(typeof info.version === 'string' ? { version: info.version } : {}),
  };
}

/** What posture evaluation reads besides the stored reports: the MFA seam, as the posture monitor holds it. */
export interface PostureSources {
  readMfaState: MfaStateReader;
}

/** The MFA state of a view made for checks that include no MFA check: as if never enrolled (it could only fail one). */
const NO_MFA_READ: MfaState = { isEnrolled: false, passedAt: undefined };

/**
 * What evaluating posture for the API session reads. Given `checks` (the checks to be evaluated), only what they
 * need is read: nothing for none, the MFA state only for an MFA check. What is not read stands as nothing reported
 * and no MFA, so a check it was not read for could only fail, never pass.
 */
export async function postureViewFor(
  db: Db,
  sources: PostureSources,
  identityId: string,
  apiSessionId: string,
  now: Date,
  checks?: readonly PostureCheckRecord[],
): Promise<PostureView> {
  if (checks?.length === 0) return { data: undefined, now, mfa: NO_MFA_READ };
  const data = await loadPosture(db, identityId);
  const state = data?.endpointStates.get(apiSessionId);
  const needsMfa = !checks || checks.some((check) => check.typeId === 'MFA');
  const mfa = needsMfa ? await sources.readMfaState(db, identityId, apiSessionId) : NO_MFA_READ;
  return { data, now, mfa: { ...mfa, wokenAt: state?.wokenAt, unlockedAt: state?.unlockedAt } };
}
