// Evaluates a posture check against what the identity reported (ziti `model/posture_check_model_*.go` Evaluate and
// FailureValues): pure functions of the check, the reported data, the MFA inputs and the time.
import { formatTimestamp } from '../lib/clock.js';
import { stringList } from '../lib/json-value.js';
import { parseRange, parseVersion, rangeIncludes, SemverError, type VersionRange } from '../lib/semver-range.js';
import {
  isMfaPassing,
  isMfaTimedOut,
  mfaFailsAt,
  mfaLastUpdatedAt,
  mfaTimeoutRemaining,
  NO_TIMEOUT,
  passedOnUnlock,
  passedOnWake,
  type MfaCheck,
  type MfaInputs,
} from './mfa-posture.js';
import type { IdentityPosture, ProcessReport } from './reported-posture.js';
import { omitEmpty } from '../lib/omit-empty.js';

/** A posture check as stored: its type-specific fields are the normalised `details` document. */
export interface PostureCheckRecord {
  id: string;
  name: string;
  typeId: string;
  createdAt: string;
  updatedAt: string;
  tags: unknown;
  details: Record<string, unknown>;
}

/** Everything an evaluation reads for one API session of one identity. */
export interface PostureView {
  data: IdentityPosture | undefined;
  mfa: MfaInputs;
  now: Date;
}

interface OperatingSystem {
  type: string;
  versions: string[];
}

interface ProcessCriteria {
  osType: string;
  path: string;
  hashes: string[];
  signerFingerprints: string[];
}

interface Evaluator {
  passes(details: Record<string, unknown>, view: PostureView, checkId: string): boolean;
  /** The type's `actualValue` / `expectedValue` (and more) of a failure, as failed-service-requests shows them. */
  failure(details: Record<string, unknown>, view: PostureView, checkId: string): Record<string, unknown>;
}

const equalFold = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
const listOf = (value: unknown): string[] => stringList(value) ?? [];

/** The check's OS types (lower case; a repeated type replaces the earlier one) and their parseable ranges. */
function validOperatingSystems(systems: readonly OperatingSystem[]): Map<string, VersionRange[]> {
  const valid = new Map<string, VersionRange[]>();
  for (const os of systems) {
    valid.set(
      os.type.toLowerCase(),
      os.versions.flatMap((version) => {
        try {
          return [parseRange(version)];
        } catch (error) {
          if (error instanceof SemverError) return [];
          throw error;
        }
      }),
    );
  }
  return valid;
}

const operatingSystem: Evaluator = {
  passes(details, { data }) {
    const os = data?.os;
    // Check details are stored as the contract validated them (posture-check rules), so their shape is known.
    const ranges = validOperatingSystems((details.operatingSystems ?? []) as OperatingSystem[]).get(
      (os?.type ?? '').toLowerCase(),
    );
    if (!ranges) return false;
    if (ranges.length === 0) return true;
    if (!os) return false;
    try {
      const version = parseVersion(os.version);
      return ranges.some((range) => rangeIncludes(range, version));
    } catch (error) {
      if (error instanceof SemverError) return false;
      throw error;
    }
  },
  failure: (details, { data }) => ({
    actualValue: { type: data?.os?.type ?? '', version: data?.os?.version ?? '' },
    expectedValue: details.operatingSystems ?? [],
  }),
};

const macAddress: Evaluator = {
  passes(details, { data }) {
    const valid = new Set(listOf(details.macAddresses));
    return (data?.mac?.addresses ?? []).some((address) => valid.has(address));
  },
  failure: (details, { data }) => ({
    actualValue: data?.mac?.addresses ?? [],
    expectedValue: listOf(details.macAddresses),
  }),
};

const domain: Evaluator = {
  passes: (details, { data }) => listOf(details.domains).some((name) => equalFold(name, data?.domain?.domain ?? '')),
  failure: (details, { data }) => ({ actualValue: data?.domain?.domain ?? '', expectedValue: listOf(details.domains) }),
};

/** PROCESS checks match the report sent for the same check id; path and OS are not compared (upstream). */
const reportFor = (data: IdentityPosture | undefined, checkId: string) =>
  data?.processes.find((report) => report.postureCheckId === checkId);

const actualProcess = (report: ProcessReport | undefined) => ({
  hash: report?.hash ?? '',
  isRunning: report?.isRunning ?? false,
  signerFingerprints: report?.signerFingerprints ?? [],
});

/** A PROCESS check's criteria: stored as the contract validated them (posture-check rules), so their shape is known. */
const processOf = (details: Record<string, unknown>) =>
  details.process as { osType: string; path: string; hashes: string[]; signerFingerprint: string };

const process: Evaluator = {
  passes(details, { data }, checkId) {
    const criteria = processOf(details);
    const report = reportFor(data, checkId);
    if (!report?.isRunning) return false;
    if (
      criteria.signerFingerprint &&
      !report.signerFingerprints.some((signer) => equalFold(signer, criteria.signerFingerprint))
    )
      return false;
    return criteria.hashes.length === 0 || criteria.hashes.some((hash) => equalFold(hash, report.hash));
  },
  failure(details, { data }, checkId) {
    const { osType, path, hashes, signerFingerprint } = processOf(details);
    return {
      actualValue: actualProcess(reportFor(data, checkId)),
      expectedValue: { hashes, osType, path, ...omitEmpty({ signerFingerprint }) },
    };
  },
};

/** One process of a PROCESS_MULTI check against the latest report for its path (`VerifyMultiCriteria`). */
function meetsCriteria(report: ProcessReport, criteria: ProcessCriteria): boolean {
  if (!report.isRunning) return false;
  if (criteria.hashes.length > 0 && !criteria.hashes.some((hash) => equalFold(hash, report.hash))) return false;
  return (
    criteria.signerFingerprints.length === 0 ||
    criteria.signerFingerprints.some((signer) => report.signerFingerprints.some((given) => equalFold(given, signer)))
  );
}

const processMulti: Evaluator = {
  passes(details, { data }) {
    // Stored as the contract validated them (posture-check rules).
    const processes = (details.processes ?? []) as ProcessCriteria[];
    const met = (criteria: ProcessCriteria) => {
      const report = data?.processesByPath.get(criteria.path);
      return report !== undefined && meetsCriteria(report, criteria);
    };
    // An entry without a path fails AllOf and is skipped by AnyOf.
    if (details.semantic === 'AllOf') return processes.every((criteria) => criteria.path !== '' && met(criteria));
    if (details.semantic === 'AnyOf') return processes.some((criteria) => criteria.path !== '' && met(criteria));
    return false;
  },
  failure(details, { data }, checkId) {
    // As upstream's FailureValues: the report sent under this check's id, whatever its path.
    const report = reportFor(data, checkId);
    return {
      actualValue: report ? [{ ...actualProcess(report), path: report.path }] : [],
      expectedValue: details.processes ?? [],
      semantic: details.semantic,
    };
  },
};

const mfaCheckOf = (details: Record<string, unknown>): MfaCheck => ({
  timeoutSeconds:
    typeof details.timeoutSeconds === 'number' && details.timeoutSeconds > 0 ? details.timeoutSeconds : NO_TIMEOUT,
  promptOnWake: details.promptOnWake === true,
  promptOnUnlock: details.promptOnUnlock === true,
  ignoreLegacyEndpoints: details.ignoreLegacyEndpoints === true,
});

const timestampOrNull = (at: Date | undefined) => (at ? formatTimestamp(at) : null);

const mfa: Evaluator = {
  passes: (details, { mfa: inputs, now }) => isMfaPassing(mfaCheckOf(details), inputs, now),
  failure(details, { mfa: inputs, now }) {
    const check = mfaCheckOf(details);
    const passed = inputs.isEnrolled ? inputs.passedAt : undefined;
    return {
      actualValue: {
        passedMfa: passed !== undefined,
        passedOnUnlock: passedOnUnlock(check, inputs, now),
        passedOnWake: passedOnWake(check, inputs, now),
        // Without an MFA record upstream reports the data as timed out.
        timedOut: passed ? isMfaTimedOut(check, inputs, now) : true,
      },
      criteria: {
        passedMfaAt: timestampOrNull(passed),
        timeoutRemainingSeconds: passed ? mfaTimeoutRemaining(check, inputs, now) : 0,
        timeoutSeconds: check.timeoutSeconds,
        unlockedAt: timestampOrNull(inputs.unlockedAt),
        wokenAt: timestampOrNull(inputs.wokenAt),
      },
      expectedValue: {
        passedMfa: true,
        passedOnUnlock: check.promptOnUnlock,
        passedOnWake: check.promptOnWake,
        timedOut: false,
      },
    };
  },
};

const evaluators: Record<string, Evaluator> = {
  OS: operatingSystem,
  MAC: macAddress,
  DOMAIN: domain,
  PROCESS: process,
  PROCESS_MULTI: processMulti,
  MFA: mfa,
};

/** A check of a type this controller does not know never passes. */
export function isCheckPassing(check: PostureCheckRecord, view: PostureView): boolean {
  return evaluators[check.typeId]?.passes(check.details, view, check.id) ?? false;
}

/** The `timeout` of a posture query: MFA's timeout in seconds; -1 (none) for every other type. */
export function checkTimeout(check: PostureCheckRecord): number {
  return check.typeId === 'MFA' ? mfaCheckOf(check.details).timeoutSeconds : NO_TIMEOUT;
}

export function checkTimeoutRemaining(check: PostureCheckRecord, view: PostureView): number {
  return check.typeId === 'MFA' ? mfaTimeoutRemaining(mfaCheckOf(check.details), view.mfa, view.now) : NO_TIMEOUT;
}

/** When the reported state last changed what the check means to the client (MFA prompts only). */
export function checkLastUpdatedAt(check: PostureCheckRecord, view: PostureView): Date | undefined {
  return check.typeId === 'MFA' ? mfaLastUpdatedAt(mfaCheckOf(check.details), view.mfa) : undefined;
}

/** When a passing check starts failing with no new input: only MFA checks run out. */
export function checkFailsAt(check: PostureCheckRecord, view: PostureView): Date | undefined {
  return check.typeId === 'MFA' ? mfaFailsAt(mfaCheckOf(check.details), view.mfa, view.now) : undefined;
}

/** A failed check as `GET /identities/{id}/failed-service-requests` lists it. */
export function checkFailure(check: PostureCheckRecord, view: PostureView): Record<string, unknown> {
  return {
    ...evaluators[check.typeId]?.failure(check.details, view, check.id),
    postureCheckId: check.id,
    postureCheckName: check.name,
    postureCheckType: check.typeId,
  };
}
