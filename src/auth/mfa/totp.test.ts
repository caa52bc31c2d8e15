import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { matchTotp, newRecoveryCodes, newTotpSecret, provisioningUrl, totpStep } from './totp.js';

// RFC 6238 appendix B: the SHA1 seed "12345678901234567890" (base32 below), 8-digit values truncated to 6.
const RFC_SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
const at = (seconds: number) => new Date(seconds * 1000);

describe('TOTP', () => {
  it('matches the RFC 6238 test vectors (last six digits)', () => {
    assert.equal(matchTotp(RFC_SECRET, '287082', at(59), 0), totpStep(at(59)));
    assert.equal(matchTotp(RFC_SECRET, '081804', at(1111111109), 0), totpStep(at(1111111109)));
    assert.equal(matchTotp(RFC_SECRET, '005924', at(1234567890), 0), totpStep(at(1234567890)));
  });

  it('accepts two steps either side and no more', () => {
    const now = 1111111109;
    assert.equal(matchTotp(RFC_SECRET, '081804', at(now + 60), 0), totpStep(at(now)));
    assert.equal(matchTotp(RFC_SECRET, '081804', at(now - 60), 0), totpStep(at(now)));
    assert.equal(matchTotp(RFC_SECRET, '081804', at(now + 90), 0), undefined);
  });

  it('refuses a step already used, and anything but six digits', () => {
    const step = totpStep(at(59));
    assert.equal(matchTotp(RFC_SECRET, '287082', at(59), step), undefined);
    for (const code of ['', '28708', '2870822', '28708a', ' 287082', '94287082'])
      assert.equal(matchTotp(RFC_SECRET, code, at(59), 0), undefined, code);
  });

  it('makes 16-character base32 secrets and 20 sorted six-character recovery codes', () => {
    assert.match(newTotpSecret(), /^[A-Z2-7]{16}$/);
    assert.notEqual(newTotpSecret(), newTotpSecret());
    const codes = newRecoveryCodes();
    assert.equal(codes.length, 20);
    for (const code of codes) assert.match(code, /^[A-Z2-7]{6}$/);
    assert.deepEqual(codes, [...codes].sort());
  });

  it('writes the provisioning URL as upstream, escaping only what a URL cannot hold', () => {
    assert.equal(
      provisioningUrl('openziti.io', 'laptop-01', 'ABCDEFGHIJKLMNOP'),
      'otpauth://totp/openziti.io:laptop-01?issuer=openziti.io&secret=ABCDEFGHIJKLMNOP',
    );
    assert.equal(
      provisioningUrl('my org', 'Jane Doe #2', 'ABCDEFGHIJKLMNOP'),
      'otpauth://totp/my%20org:Jane%20Doe%20%232?issuer=my+org&secret=ABCDEFGHIJKLMNOP',
    );
  });
});
