import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PostureCheckRecord, PostureView } from './check-evaluation.js';
import type { PolicyPostureChecks } from './policy-checks.js';
import { evaluateSessionPosture, failedServiceRequest, invalidPosture } from './session-posture.js';

const now = new Date('2030-01-01T00:00:00.000Z');
const check = (id: string, typeId: string, details: Record<string, unknown>): PostureCheckRecord => ({
  id,
  name: `name of ${id}`,
  typeId,
  createdAt: '2029-01-01T00:00:00.000Z',
  updatedAt: '2029-01-01T00:00:00.000Z',
  tags: {},
  details,
});
const failingMac = check('mac', 'MAC', { macAddresses: ['aabbccddeeff'] });
const mfa = check('mfa', 'MFA', { timeoutSeconds: 600 });
const policy = (policyId: string, policyType: 'Dial' | 'Bind', checks: PostureCheckRecord[]): PolicyPostureChecks => ({
  policyId,
  policyName: `${policyId} name`,
  policyType,
  checks,
});
const view: PostureView = { data: undefined, mfa: { isEnrolled: false }, now };

describe('evaluateSessionPosture', () => {
  it('passes when no policy of the requested type links identity and service', () => {
    const result = evaluateSessionPosture([policy('bind', 'Bind', [failingMac])], 'Dial', view);
    assert.deepEqual(result, { passed: true, passingPolicyIds: [], failures: [], failsAt: undefined });
  });

  it('passes when any one policy of the type passes, and records the passing ones', () => {
    const result = evaluateSessionPosture(
      [policy('a', 'Dial', [failingMac]), policy('b', 'Dial', []), policy('c', 'Bind', [])],
      'Dial',
      view,
    );
    assert.equal(result.passed, true);
    assert.deepEqual(result.passingPolicyIds, ['b']);
  });

  it('fails when every policy of the type fails, naming each with its failing checks', () => {
    const result = evaluateSessionPosture(
      [policy('a', 'Dial', [failingMac]), policy('b', 'Dial', [failingMac, mfa])],
      'Dial',
      view,
    );
    assert.equal(result.passed, false);
    assert.deepEqual(
      result.failures.map((f) => [f.policy.policyId, f.failedChecks.map((c) => c.id)]),
      [
        ['a', ['mac']],
        ['b', ['mac', 'mfa']],
      ],
    );
    const error = invalidPosture(result);
    assert.equal(error.code, 'INVALID_POSTURE');
    assert.equal(error.status, 409);
    assert.deepEqual(error.cause, {
      message: 'Failed to pass posture checks for service policies: [a b]',
      data: {
        a: [{ id: 'mac', isPassing: false, typeId: 'MAC' }],
        b: [
          { id: 'mac', isPassing: false, typeId: 'MAC' },
          { id: 'mfa', isPassing: false, typeId: 'MFA' },
        ],
      },
    });
    const record = failedServiceRequest(result, view, {
      apiSessionId: 'as',
      serviceId: 's',
      serviceName: 'svc',
      sessionType: 'Dial',
    });
    assert.equal(record.when, '2030-01-01T00:00:00.000Z');
    assert.deepEqual(
      (record.policyFailures as { policyName: string }[]).map((f) => f.policyName),
      ['a name', 'b name'],
    );
  });

  it('tells when a passing result runs out: once the last passing policy does', () => {
    const passed: PostureView = { data: undefined, mfa: { isEnrolled: true, passedAt: now }, now };
    const short = check('short', 'MFA', { timeoutSeconds: 60 });
    const result = evaluateSessionPosture([policy('a', 'Dial', [mfa]), policy('b', 'Dial', [short])], 'Dial', passed);
    assert.deepEqual(result.failsAt, new Date(now.getTime() + 600_001));
    const forever = evaluateSessionPosture([policy('a', 'Dial', [mfa]), policy('b', 'Dial', [])], 'Dial', passed);
    assert.equal(forever.failsAt, undefined, 'a policy without timed checks never runs out');
  });
});
