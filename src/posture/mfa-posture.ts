// MFA posture checks as pure functions of their inputs (ziti `model/posture_check_model_mfa.go`): whether the API
// session passed MFA recently enough, and since the device last woke or was unlocked when the check asks for that.
import { compareVersions, parseVersion, SemverError } from '../lib/semver-range.js';

export interface MfaCheck {
  /** -1: no timeout. */
  timeoutSeconds: number;
  promptOnWake: boolean;
  promptOnUnlock: boolean;
  /** Only reporting: legacy clients are told there is no timeout. */
  ignoreLegacyEndpoints: boolean;
}

export interface MfaInputs {
  /** The identity has MFA enrolled and verified. */
  isEnrolled: boolean;
  /** When this API session last passed MFA; absent when it has not. */
  passedAt?: Date;
  /** When this API session's device last reported waking / unlocking (ENDPOINT_STATE). */
  wokenAt?: Date;
  unlockedAt?: Date;
  /** The client as it described itself at login, for `ignoreLegacyEndpoints`. */
  sdk?: { type?: string; version?: string };
}

export const NO_TIMEOUT = -1;
/** After a wake or unlock the session keeps passing this long, for the user to answer the MFA prompt. */
export const PROMPT_GRACE_MS = 5 * 60_000;
/** C SDKs before this version do not understand MFA timeouts (`minCSdkVersion`). */
const MIN_C_SDK_VERSION = parseVersion('0.25.0');

/** MFA counts as passed only while it is enrolled: removing it clears every pass (`SetMfaPostureForIdentity`). */
function passedAt(inputs: MfaInputs): Date | undefined {
  return inputs.isEnrolled ? inputs.passedAt : undefined;
}

/** Go's `int64(duration.Seconds())`: whole seconds, truncated toward zero. */
const wholeSeconds = (ms: number) => Math.trunc(ms / 1000);

/** A wake (or unlock) before the MFA pass, or within the grace period, still passes; one older than that fails. */
function passedSinceEvent(event: Date | undefined, passed: Date, now: Date): boolean {
  return !event || event < passed || now.getTime() - PROMPT_GRACE_MS < event.getTime();
}

export function passedOnWake(check: MfaCheck, inputs: MfaInputs, now: Date): boolean {
  if (!check.promptOnWake) return true;
  const passed = passedAt(inputs);
  return passed !== undefined && passedSinceEvent(inputs.wokenAt, passed, now);
}

export function passedOnUnlock(check: MfaCheck, inputs: MfaInputs, now: Date): boolean {
  if (!check.promptOnUnlock) return true;
  const passed = passedAt(inputs);
  return passed !== undefined && passedSinceEvent(inputs.unlockedAt, passed, now);
}

/** The pass is older than the check's timeout allows (`evaluateAt` marks the data timed out). */
export function isMfaTimedOut(check: MfaCheck, inputs: MfaInputs, now: Date): boolean {
  const passed = passedAt(inputs);
  if (!passed) return false;
  return check.timeoutSeconds !== NO_TIMEOUT && passed.getTime() + check.timeoutSeconds * 1000 < now.getTime();
}

export function isMfaPassing(check: MfaCheck, inputs: MfaInputs, now: Date): boolean {
  if (!passedAt(inputs)) return false;
  return !isMfaTimedOut(check, inputs, now) && passedOnWake(check, inputs, now) && passedOnUnlock(check, inputs, now);
}

/** Seconds left before the check fails (`getTimeoutRemainingAtSeconds`): -1 when it never times out, 0 when not passed. */
export function mfaTimeoutRemaining(check: MfaCheck, inputs: MfaInputs, now: Date): number {
  if (check.timeoutSeconds === NO_TIMEOUT) return NO_TIMEOUT;
  const passed = passedAt(inputs);
  if (!passed) return 0;
  if (check.ignoreLegacyEndpoints && isLegacyClient(inputs.sdk)) return NO_TIMEOUT;
  let remaining = check.timeoutSeconds - wholeSeconds(now.getTime() - passed.getTime());
  if (remaining <= 0) return 0;
  for (const [prompted, event] of [
    [check.promptOnWake, inputs.wokenAt],
    [check.promptOnUnlock, inputs.unlockedAt],
  ] as const) {
    if (prompted && event && event > passed)
      remaining = Math.min(remaining, Math.max(0, wholeSeconds(PROMPT_GRACE_MS - (now.getTime() - event.getTime()))));
  }
  return remaining;
}

/**
 * The wake or unlock time a prompting check shows as its `updatedAt` (`LastUpdatedAt`): the later of the events
 * it prompts on, once the API session has an MFA record and an endpoint state.
 */
export function mfaLastUpdatedAt(check: MfaCheck, inputs: MfaInputs): Date | undefined {
  if (!passedAt(inputs)) return undefined;
  const events = [
    check.promptOnWake ? inputs.wokenAt : undefined,
    check.promptOnUnlock ? inputs.unlockedAt : undefined,
  ];
  return events.reduce<Date | undefined>(
    (latest, event) => (event && (!latest || event > latest) ? event : latest),
    undefined,
  );
}

/**
 * When a passing check would start failing if nothing new arrived: the end of its timeout or of a prompt's grace
 * period. Undefined when it is not passing (only new input can change that) or nothing runs out.
 */
export function mfaFailsAt(check: MfaCheck, inputs: MfaInputs, now: Date): Date | undefined {
  const passed = passedAt(inputs);
  if (!passed || !isMfaPassing(check, inputs, now)) return undefined;
  const ends: number[] = [];
  // Timed out once the deadline is strictly in the past.
  if (check.timeoutSeconds !== NO_TIMEOUT) ends.push(passed.getTime() + check.timeoutSeconds * 1000 + 1);
  for (const [prompted, event] of [
    [check.promptOnWake, inputs.wokenAt],
    [check.promptOnUnlock, inputs.unlockedAt],
  ] as const) {
    if (prompted && event && event >= passed) ends.push(event.getTime() + PROMPT_GRACE_MS);
  }
  return ends.length > 0 ? new Date(Math.min(...ends)) : undefined;
}

/** Unknown clients count as legacy; a C SDK by its version (`IsLegacyClient`). */
export function isLegacyClient(sdk: MfaInputs['sdk']): boolean {
  if (sdk?.type !== 'ziti-sdk-c' || sdk.version === undefined) return true;
  try {
    return compareVersions(parseVersion(sdk.version), MIN_C_SDK_VERSION) < 0;
  } catch (error) {
    if (error instanceof SemverError) return true;
    throw error;
  }
}
