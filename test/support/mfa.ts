// TOTP codes as an authenticator app computes them (otpauth, independently of the controller's own check), and an
// identity's MFA enrolled and verified through the API.
import assert from 'node:assert/strict';
import { Secret, TOTP } from 'otpauth';
import type { TestApp } from './test-app.js';

/** The code an app shows at `at` for the secret (RFC 6238: SHA1, 6 digits, 30 s). */
export function totpCode(secret: string, at: Date): string {
  return new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({
    timestamp: at.getTime(),
  });
}

export function secretOf(provisioningUrl: string): string {
  const secret = new URL(provisioningUrl).searchParams.get('secret');
  assert.ok(secret, `no secret in ${provisioningUrl}`);
  return secret;
}

export interface EnrolledMfa {
  secret: string;
  recoveryCodes: string[];
}

/** Starts and verifies MFA for the session's identity; the clock moves a step on, so the code is not reused later. */
export async function enrollVerifiedMfa(
  t: TestApp,
  token: string,
  api: 'client' | 'management' = 'client',
): Promise<EnrolledMfa> {
  const base = `/edge/${api}/v1/current-identity/mfa`;
  const started = await t.call({
    method: 'POST',
    url: base,
    token,
    headers: { 'content-type': 'application/json' },
    payload: '',
  });
  assert.equal(started.status, 201, started.text);
  const detail = (await t.call({ method: 'GET', url: base, token })).body as {
    data: { provisioningUrl: string; recoveryCodes: string[] };
  };
  const secret = secretOf(detail.data.provisioningUrl);
  const verified = await t.call({
    method: 'POST',
    url: `${base}/verify`,
    token,
    payload: { code: totpCode(secret, t.clock()) },
  });
  assert.equal(verified.status, 200, verified.text);
  t.clock.advance(30_000);
  return { secret, recoveryCodes: detail.data.recoveryCodes };
}
