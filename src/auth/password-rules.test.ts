import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiError } from '../errors/api-error.js';
import { checkPasswordRules, type PasswordRules } from './password-rules.js';

const lax: PasswordRules = {
  minLength: 5,
  requireMixedCase: false,
  requireNumberChar: false,
  requireSpecialChar: false,
};
const strict: PasswordRules = {
  minLength: 8,
  requireMixedCase: true,
  requireNumberChar: true,
  requireSpecialChar: true,
};

function reason(password: unknown, rules: PasswordRules): string | undefined {
  try {
    checkPasswordRules(password, rules);
    return undefined;
  } catch (error) {
    const { cause, code } = error as ApiError;
    assert.equal(code, 'COULD_NOT_VALIDATE');
    assert.equal((cause as { field: string }).field, 'password');
    assert.notEqual((cause as { value: string }).value, password, 'never echoed');
    return (cause as { reason: string }).reason;
  }
}

describe('checkPasswordRules', () => {
  it('bounds the length by characters, 100 at most', () => {
    assert.match(reason('abcd', lax)!, /at least 5/);
    assert.equal(reason('ab😀de', lax), undefined);
    assert.equal(reason('x'.repeat(100), lax), undefined);
    assert.match(reason('x'.repeat(101), lax)!, /at most 100/);
    assert.match(reason(undefined, lax)!, /required/);
  });

  it('checks each character rule the policy turns on', () => {
    assert.equal(reason('Abcdef1!', strict), undefined);
    assert.match(reason('abcdef1!', strict)!, /upper and lower/);
    assert.match(reason('Abcdefg!', strict)!, /number/);
    assert.match(reason('Abcdefg1', strict)!, /special/);
    assert.equal(reason('Ábcdéf1 ', strict), undefined, 'letters beyond ASCII and a space count');
  });
});
