import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  isLegacyClient,
  isMfaPassing,
  mfaFailsAt,
  mfaLastUpdatedAt,
  mfaTimeoutRemaining,
  passedOnUnlock,
  passedOnWake,
  type MfaCheck,
  type MfaInputs,
} from './mfa-posture.js';

const start = new Date('2030-01-01T00:00:00.000Z');
const at = (seconds: number) => new Date(start.getTime() + seconds * 1000);
const check = (overrides: Partial<MfaCheck> = {}): MfaCheck => ({
  timeoutSeconds: -1,
  promptOnWake: false,
  promptOnUnlock: false,
  ignoreLegacyEndpoints: false,
  ...overrides,
});
const passed = (overrides: Partial<MfaInputs> = {}): MfaInputs => ({
  isEnrolled: true,
  passedAt: start,
  sdk: { type: 'ziti-sdk-c', version: '1.0.12' },
  ...overrides,
});

describe('MFA posture', () => {
  describe('isMfaPassing', () => {
    it('fails without MFA: not enrolled, or this API session never passed it', () => {
      assert.equal(isMfaPassing(check(), { isEnrolled: false }, at(1)), false);
      assert.equal(isMfaPassing(check(), { isEnrolled: true }, at(1)), false);
      // A pass recorded while MFA is no longer enrolled does not count (removing MFA clears every pass).
      assert.equal(isMfaPassing(check(), passed({ isEnrolled: false }), at(1)), false);
    });

    it('passes forever after a pass when the check has no timeout', () => {
      assert.equal(isMfaPassing(check(), passed(), at(10 * 365 * 86_400)), true);
    });

    it('passes until the timeout has run out, then fails (timing out)', () => {
      const timed = check({ timeoutSeconds: 60 });
      assert.equal(isMfaPassing(timed, passed(), at(59)), true);
      assert.equal(isMfaPassing(timed, passed(), at(60)), true, 'the deadline itself still passes');
      assert.equal(isMfaPassing(timed, passed(), new Date(at(60).getTime() + 1)), false);
    });

    it('prompt on wake: a wake before the pass does not matter', () => {
      const wake = check({ promptOnWake: true });
      assert.equal(isMfaPassing(wake, passed({ passedAt: at(10), wokenAt: at(5) }), at(3600)), true);
      assert.equal(isMfaPassing(wake, passed(), at(3600)), true, 'no wake at all');
    });

    it('prompt on wake: a wake after the pass passes for the 5-minute grace, then fails', () => {
      const wake = check({ promptOnWake: true });
      const woken = passed({ wokenAt: at(100) });
      assert.equal(isMfaPassing(wake, woken, at(100 + 299)), true);
      assert.equal(isMfaPassing(wake, woken, at(100 + 300)), false);
      assert.equal(passedOnWake(wake, woken, at(400)), false);
      // Passing MFA again after the wake clears it.
      assert.equal(isMfaPassing(wake, passed({ wokenAt: at(100), passedAt: at(200) }), at(1000)), true);
    });

    it('prompt on unlock works as on wake, on the unlock time only', () => {
      const unlock = check({ promptOnUnlock: true });
      assert.equal(
        isMfaPassing(unlock, passed({ wokenAt: at(100) }), at(1000)),
        true,
        'a wake does not prompt an unlock check',
      );
      const unlocked = passed({ unlockedAt: at(100) });
      assert.equal(isMfaPassing(unlock, unlocked, at(399)), true);
      assert.equal(isMfaPassing(unlock, unlocked, at(400)), false);
      assert.equal(passedOnUnlock(unlock, unlocked, at(400)), false);
      assert.equal(passedOnUnlock(check(), unlocked, at(400)), true, 'a check that does not prompt passes on unlock');
    });
  });

  describe('mfaTimeoutRemaining', () => {
    it('is -1 without a timeout and 0 when MFA was not passed', () => {
      assert.equal(mfaTimeoutRemaining(check(), passed(), at(5)), -1);
      assert.equal(mfaTimeoutRemaining(check({ timeoutSeconds: 60 }), { isEnrolled: false }, at(5)), 0);
    });

    it('counts whole seconds down from the pass, floored at 0', () => {
      const timed = check({ timeoutSeconds: 60 });
      assert.equal(mfaTimeoutRemaining(timed, passed(), new Date(at(10).getTime() + 900)), 50);
      assert.equal(mfaTimeoutRemaining(timed, passed(), at(61)), 0);
    });

    it('is lowered to what is left of the grace after a prompting wake or unlock', () => {
      const timed = check({ timeoutSeconds: 3600, promptOnWake: true, promptOnUnlock: true });
      assert.equal(mfaTimeoutRemaining(timed, passed({ wokenAt: at(100) }), at(160)), 240);
      assert.equal(mfaTimeoutRemaining(timed, passed({ wokenAt: at(100), unlockedAt: at(150) }), at(160)), 240);
      assert.equal(mfaTimeoutRemaining(timed, passed({ unlockedAt: at(150) }), at(500)), 0);
      assert.equal(
        mfaTimeoutRemaining(check({ timeoutSeconds: 3600 }), passed({ wokenAt: at(100) }), at(160)),
        3440,
        'no prompt, no lowering',
      );
    });

    it('tells legacy clients there is no timeout when the check ignores legacy endpoints', () => {
      const ignoring = check({ timeoutSeconds: 60, ignoreLegacyEndpoints: true });
      assert.equal(
        mfaTimeoutRemaining(ignoring, passed({ sdk: { type: 'ziti-sdk-c', version: '0.24.9' } }), at(10)),
        -1,
      );
      assert.equal(mfaTimeoutRemaining(ignoring, passed({ sdk: undefined }), at(10)), -1);
      assert.equal(mfaTimeoutRemaining(ignoring, passed(), at(10)), 50);
    });
  });

  describe('isLegacyClient', () => {
    it('counts unknown clients and C SDKs before 0.25.0 as legacy', () => {
      assert.equal(isLegacyClient(undefined), true);
      assert.equal(isLegacyClient({ type: 'ziti-sdk-golang', version: '1.0.0' }), true);
      assert.equal(isLegacyClient({ type: 'ziti-sdk-c', version: '0.24.1' }), true);
      assert.equal(isLegacyClient({ type: 'ziti-sdk-c', version: 'not-a-version' }), true);
      assert.equal(isLegacyClient({ type: 'ziti-sdk-c', version: '0.25.0' }), false);
    });
  });

  describe('mfaLastUpdatedAt', () => {
    it('is the later prompting event once MFA was passed', () => {
      const both = check({ promptOnWake: true, promptOnUnlock: true });
      assert.deepEqual(mfaLastUpdatedAt(both, passed({ wokenAt: at(100), unlockedAt: at(50) })), at(100));
      assert.deepEqual(
        mfaLastUpdatedAt(check({ promptOnUnlock: true }), passed({ wokenAt: at(100), unlockedAt: at(50) })),
        at(50),
      );
      assert.equal(mfaLastUpdatedAt(both, { isEnrolled: true, wokenAt: at(100) }), undefined, 'no MFA record yet');
    });
  });

  describe('mfaFailsAt', () => {
    it('is when a passing check runs out: its timeout or a prompt grace, whichever comes first', () => {
      assert.deepEqual(mfaFailsAt(check({ timeoutSeconds: 60 }), passed(), at(1)), new Date(at(60).getTime() + 1));
      const both = check({ timeoutSeconds: 3600, promptOnWake: true });
      assert.deepEqual(mfaFailsAt(both, passed({ wokenAt: at(100) }), at(101)), at(400));
      assert.equal(mfaFailsAt(check(), passed(), at(1)), undefined, 'nothing runs out');
      assert.equal(
        mfaFailsAt(check({ timeoutSeconds: 60 }), { isEnrolled: false }, at(1)),
        undefined,
        'failing already',
      );
    });
  });
});
