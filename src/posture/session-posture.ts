// Whether an identity's posture lets it use a service in one way (ziti `model/session_manager.go`
// EvaluatePostureForService): only policies of the requested type count, and any one whose checks all pass is
// enough; none at all passes too.
import { ApiError } from '../errors/api-error.js';
import { formatTimestamp } from '../lib/clock.js';
import { getOrAdd } from '../lib/collections.js';
import {
  checkFailsAt,
  checkFailure,
  isCheckPassing,
  type PostureCheckRecord,
  type PostureView,
} from './check-evaluation.js';
import type { PolicyPostureChecks } from './policy-checks.js';
import type { FailedServiceRequest } from './reported-posture.js';

export interface PolicyFailure {
  policy: PolicyPostureChecks;
  failedChecks: PostureCheckRecord[];
}

export interface SessionPostureResult {
  passed: boolean;
  /** The policies of the requested type whose checks all pass: a new session records them. */
  passingPolicyIds: string[];
  /** The policies that failed, when none passed. */
  failures: PolicyFailure[];
  /** When a passing result would start failing with no new input (MFA timeouts and prompts); else undefined. */
  failsAt?: Date;
}

export function evaluateSessionPosture(
  policies: readonly PolicyPostureChecks[],
  type: string,
  view: PostureView,
): SessionPostureResult {
  const outcomes = new Map<string, boolean>();
  const passes = (check: PostureCheckRecord) => getOrAdd(outcomes, check.id, () => isCheckPassing(check, view));
  const evaluated = policies
    .filter((policy) => policy.policyType === type)
    .map((policy) => ({ policy, failedChecks: policy.checks.filter((check) => !passes(check)) }));
  const passing = evaluated.filter((result) => result.failedChecks.length === 0).map((result) => result.policy);
  const passed = evaluated.length === 0 || passing.length > 0;
  return {
    passed,
    passingPolicyIds: passing.map((policy) => policy.policyId),
    failures: passed ? [] : evaluated,
    failsAt: passed ? latestFailure(passing, view) : undefined,
  };
}

/** The result fails once every passing policy does; a policy fails at its first check running out. */
function latestFailure(passing: readonly PolicyPostureChecks[], view: PostureView): Date | undefined {
  let latest: Date | undefined;
  for (const policy of passing) {
    const ends = policy.checks.map((check) => checkFailsAt(check, view)).filter((at): at is Date => at !== undefined);
    if (ends.length === 0) return undefined;
    const first = new Date(Math.min(...ends.map((at) => at.getTime())));
    if (!latest || first > latest) latest = first;
  }
  return latest;
}

/** 409 INVALID_POSTURE with upstream's cause: the failing policy ids, and per policy its failing checks. */
export function invalidPosture(result: SessionPostureResult): ApiError {
  const ids = result.failures.map((failure) => failure.policy.policyId);
  const data = Object.fromEntries(
    result.failures.map((failure) => [
      failure.policy.policyId,
      failure.failedChecks.map((check) => ({ id: check.id, isPassing: false, typeId: check.typeId })),
    ]),
  );
  return new ApiError('INVALID_POSTURE', {
    message: `Failed to pass posture checks for service policies: [${ids.join(' ')}]`,
    data,
  });
}

export interface RefusedRequest {
  apiSessionId: string;
  serviceId: string;
  serviceName: string;
  sessionType: string;
}

/** The refused request as `GET /identities/{id}/failed-service-requests` lists it. */
export function failedServiceRequest(
  result: SessionPostureResult,
  view: PostureView,
  request: RefusedRequest,
): FailedServiceRequest {
  return {
    apiSessionId: request.apiSessionId,
    policyFailures: result.failures.map((failure) => ({
      checks: failure.failedChecks.map((check) => checkFailure(check, view)),
      policyId: failure.policy.policyId,
      policyName: failure.policy.policyName,
    })),
    serviceId: request.serviceId,
    serviceName: request.serviceName,
    sessionType: request.sessionType,
    when: formatTimestamp(view.now),
  };
}
