import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../../support/test-app.js';
import { assertError, type CallResult } from '../../support/conformance.js';
import { createUser, login } from '../../support/factories.js';
import { enrollVerifiedMfa, secretOf, totpCode } from '../../support/mfa.js';
import { readMfaStatus } from '../../../src/auth/mfa/mfa-status.js';
import { CLIENT as client, MANAGEMENT as management } from '../../support/api-paths.js';

const MFA = `${client}/current-identity/mfa`;
const TOTP_QUERY = {
  format: 'alphaNumeric',
  httpMethod: 'POST',
  httpUrl: './authenticate/mfa',
  maxLength: 6,
  minLength: 4,
  provider: 'ziti',
  typeId: 'MFA',
};

interface MfaDetail {
  id: string;
  isVerified: boolean;
  provisioningUrl?: string;
  recoveryCodes: string[] | null;
  _links: Record<string, { href: string }>;
}
interface Session {
  id: string;
  token: string;
  isMfaRequired: boolean;
  isMfaComplete: boolean;
  authQueries: unknown[];
}

const dataOf = <T>(result: CallResult) => (result.body as { data: T }).data;

describe('TOTP MFA of the current identity', () => {
  let t: TestApp;
  let admin: string;
  const call = (
    method: 'GET' | 'POST' | 'DELETE',
    url: string,
    token: string,
    payload?: unknown,
    headers?: Record<string, string>,
  ) => t.call({ method, url, token, ...(payload !== undefined ? { payload } : {}), ...(headers ? { headers } : {}) });
  const enroll = (token: string) =>
    t.call({ method: 'POST', url: MFA, token, headers: { 'content-type': 'application/json' }, payload: '' });
  const session = async (token: string) => dataOf<Session>(await call('GET', `${client}/current-api-session`, token));
  const isMfaEnabled = async (id: string) =>
    dataOf<{ isMfaEnabled: boolean }>(await call('GET', `${management}/identities/${id}`, admin)).isMfaEnabled;

  before(async () => {
    t = await buildTestApp();
    admin = await t.loginAsAdmin();
  });
  after(() => t.close());

  it('answers 404 everywhere (409 at authenticate/mfa) before any enrollment, and logins are complete', async () => {
    const user = await createUser(t, admin);
    const token = await login(t, user.username, user.password);
    assertError(await call('GET', MFA, token), 404, 'NOT_FOUND');
    assertError(await call('DELETE', MFA, token), 404, 'NOT_FOUND');
    assertError(await call('POST', `${MFA}/verify`, token, { code: '123456' }), 404, 'NOT_FOUND');
    assertError(await call('GET', `${MFA}/qr-code`, token), 404, 'NOT_FOUND');
    assertError(
      await call('GET', `${MFA}/recovery-codes`, token, undefined, { 'mfa-validation-code': '123456' }),
      404,
      'NOT_FOUND',
    );
    assertError(await call('POST', `${MFA}/recovery-codes`, token, { code: '123456' }), 404, 'NOT_FOUND');
    assertError(await call('POST', `${client}/authenticate/mfa`, token, { code: '123456' }), 409, 'MFA_NOT_ENROLLED');
    const current = await session(token);
    assert.deepEqual([current.isMfaRequired, current.isMfaComplete, current.authQueries], [false, false, []]);
    assert.equal(await isMfaEnabled(user.id), false);
    const me = dataOf<{ _links: unknown }>(await call('GET', `${client}/current-identity`, token));
    assert.deepEqual(me._links, { mfa: { href: './current-identity/mfa' }, self: { href: './current-identity' } });
  });

  it('starts an enrollment whose secret, recovery codes and QR code show until it is verified', async () => {
    const user = await createUser(t, admin);
    const token = await login(t, user.username, user.password);
    const started = await enroll(token);
    assert.equal(started.status, 201, started.text);
    assert.deepEqual(dataOf<{ _links: unknown }>(started)._links, { self: { href: './current-identity/mfa' } });
    assertError(await enroll(token), 409, 'MFA_EXISTS');

    const detail = dataOf<MfaDetail>(await call('GET', MFA, token));
    assert.equal(detail.isVerified, false);
    assert.deepEqual(Object.keys(detail._links).sort(), ['current-identity', 'qr', 'self', 'verify']);
    const name = dataOf<{ name: string }>(await call('GET', `${management}/identities/${user.id}`, admin)).name;
    assert.match(
      detail.provisioningUrl!,
      new RegExp(`^otpauth://totp/openziti\\.io:${name}\\?issuer=openziti\\.io&secret=[A-Z2-7]{16}$`),
    );
    assert.equal(detail.recoveryCodes!.length, 20);
    for (const code of detail.recoveryCodes!) assert.match(code, /^[A-Z2-7]{6}$/);
    assert.deepEqual(detail.recoveryCodes, [...detail.recoveryCodes!].sort());

    const qr = await call('GET', `${MFA}/qr-code`, token);
    assert.equal(qr.status, 200);
    assert.equal(qr.headers['content-type'], 'image/png');
    const png = Buffer.from(qr.text, 'latin1');
    assert.equal(png.subarray(1, 4).toString(), 'PNG');
    assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [256, 256]);

    // Unverified MFA changes nothing at login (upstream: "partially enrolled MFA should fully authenticate").
    const again = await login(t, user.username, user.password);
    assert.deepEqual((await session(again)).authQueries, []);
    assertError(
      await call('GET', `${MFA}/recovery-codes`, token, undefined, { 'mfa-validation-code': '123456' }),
      404,
      'NOT_FOUND',
    );
    // An unverified enrollment is removed without a code.
    assert.equal((await call('DELETE', MFA, token)).status, 200);
    assertError(await call('GET', MFA, token), 404, 'NOT_FOUND');
  });

  it('verifies with a current TOTP code only, within two steps either side, each code once', async () => {
    const user = await createUser(t, admin);
    const token = await login(t, user.username, user.password);
    await enroll(token);
    const detail = dataOf<MfaDetail>(await call('GET', MFA, token));
    const secret = secretOf(detail.provisioningUrl!);
    const now = t.clock().getTime();
    assertError(await call('POST', `${MFA}/verify`, token, {}), 400, 'COULD_NOT_VALIDATE', 'code');
    assertError(await call('POST', `${MFA}/verify`, token, { code: '' }), 400, 'MFA_INVALID_TOKEN');
    assertError(
      await call('POST', `${MFA}/verify`, token, { code: detail.recoveryCodes![0] }),
      400,
      'MFA_INVALID_TOKEN',
    );
    assertError(
      await call('POST', `${MFA}/verify`, token, { code: totpCode(secret, new Date(now + 90_000)) }),
      400,
      'MFA_INVALID_TOKEN',
    );
    assertError(
      await call('POST', `${MFA}/verify`, token, { code: totpCode(secret, new Date(now - 90_000)) }),
      400,
      'MFA_INVALID_TOKEN',
    );
    const code = totpCode(secret, new Date(now + 60_000));
    assert.equal((await call('POST', `${MFA}/verify`, token, { code })).status, 200);

    const current = await session(token);
    assert.deepEqual([current.isMfaRequired, current.isMfaComplete, current.authQueries], [true, true, []]);
    assertError(await call('POST', `${MFA}/verify`, token, { code: totpCode(secret, t.clock()) }), 404, 'NOT_FOUND');
    assertError(await call('GET', `${MFA}/qr-code`, token), 404, 'NOT_FOUND');
    const verified = dataOf<MfaDetail>(await call('GET', MFA, token));
    assert.deepEqual([verified.isVerified, verified.provisioningUrl, verified.recoveryCodes], [true, undefined, null]);
    assert.deepEqual(Object.keys(verified._links).sort(), ['current-identity', 'recovery-codes', 'self']);
    assert.equal(await isMfaEnabled(user.id), true);

    // The code that verified cannot be replayed at login, even inside its window.
    const partial = await login(t, user.username, user.password);
    assertError(await call('POST', `${client}/authenticate/mfa`, partial, { code }), 400, 'MFA_INVALID_TOKEN');
  });

  it('gives later sessions the MFA auth query and only the partial operations until a code is given', async () => {
    const user = await createUser(t, admin);
    const { secret } = await enrollVerifiedMfa(t, await login(t, user.username, user.password));
    const login2 = await t.call({
      method: 'POST',
      url: `${client}/authenticate?method=password`,
      payload: { username: user.username, password: user.password },
    });
    const started = dataOf<Session>(login2);
    assert.deepEqual([started.isMfaRequired, started.isMfaComplete, started.authQueries], [true, false, [TOTP_QUERY]]);
    const token = started.token;
    assert.deepEqual((await session(token)).authQueries, [TOTP_QUERY]);
    for (const url of [
      `${client}/current-identity`,
      `${client}/services`,
      `${client}/current-identity/authenticators`,
      `${MFA}/recovery-codes`,
    ]) {
      assertError(await call('GET', url, token), 401, 'UNAUTHORIZED');
    }
    assertError(await call('DELETE', MFA, token), 401, 'UNAUTHORIZED');
    assert.equal((await call('GET', MFA, token)).status, 200);

    assertError(await call('POST', `${client}/authenticate/mfa`, token, { code: '000000' }), 400, 'MFA_INVALID_TOKEN');
    assertError(await call('POST', `${client}/authenticate/mfa`, token, { code: '' }), 400, 'MFA_INVALID_TOKEN');
    assert.equal(
      (await call('POST', `${client}/authenticate/mfa`, token, { code: totpCode(secret, t.clock()) })).status,
      200,
    );
    const done = await session(token);
    assert.deepEqual([done.isMfaRequired, done.isMfaComplete, done.authQueries], [true, true, []]);
    assert.equal((await call('GET', `${client}/current-identity`, token)).status, 200);
  });

  it('accepts each recovery code once at login, and shows or renews the codes against a TOTP code', async () => {
    const user = await createUser(t, admin);
    const { secret, recoveryCodes } = await enrollVerifiedMfa(t, await login(t, user.username, user.password));
    const first = await login(t, user.username, user.password);
    assert.equal((await call('POST', `${client}/authenticate/mfa`, first, { code: recoveryCodes[0] })).status, 200);
    const second = await login(t, user.username, user.password);
    assertError(
      await call('POST', `${client}/authenticate/mfa`, second, { code: recoveryCodes[0] }),
      400,
      'MFA_INVALID_TOKEN',
    );

    assertError(await call('GET', `${MFA}/recovery-codes`, first), 400, 'MFA_INVALID_TOKEN');
    assertError(
      await call('GET', `${MFA}/recovery-codes`, first, undefined, { 'mfa-validation-code': recoveryCodes[1]! }),
      400,
      'MFA_INVALID_TOKEN',
    );
    const shown = await call('GET', `${MFA}/recovery-codes`, first, undefined, {
      'mfa-validation-code': totpCode(secret, t.clock()),
    });
    assert.equal(shown.status, 200, shown.text);
    assert.deepEqual(dataOf<{ recoveryCodes: string[] }>(shown).recoveryCodes, recoveryCodes.slice(1));

    assertError(await call('POST', `${MFA}/recovery-codes`, first, { code: '' }), 400, 'MFA_INVALID_TOKEN');
    assert.equal((await call('POST', `${MFA}/recovery-codes`, first, { code: recoveryCodes[1] })).status, 200);
    t.clock.advance(30_000);
    const renewed = await call('GET', `${MFA}/recovery-codes`, first, { code: totpCode(secret, t.clock()) });
    assert.equal(renewed.status, 200, renewed.text);
    const codes = dataOf<{ recoveryCodes: string[] }>(renewed).recoveryCodes;
    assert.equal(codes.length, 20);
    assert.ok(!codes.includes(recoveryCodes[2]!), 'the old codes are gone');
  });

  it('removes verified MFA with a code in mfa-validation-code; posture no longer sees MFA passed', async () => {
    const user = await createUser(t, admin);
    const token = await login(t, user.username, user.password);
    const { secret } = await enrollVerifiedMfa(t, token);
    const sessionId = (await session(token)).id;
    assert.equal((await t.deps.store.read((db) => readMfaStatus(db, user.id, sessionId))).isMfaEnabled, true);
    assert.ok((await t.deps.store.read((db) => readMfaStatus(db, user.id, sessionId))).passedAt instanceof Date);
    assertError(await call('DELETE', MFA, token), 400, 'MFA_INVALID_TOKEN');
    assertError(
      await call('DELETE', MFA, token, undefined, { 'mfa-validation-code': '000000' }),
      400,
      'MFA_INVALID_TOKEN',
    );
    assert.equal(
      (await call('DELETE', MFA, token, undefined, { 'mfa-validation-code': totpCode(secret, t.clock()) })).status,
      200,
    );
    assert.deepEqual(await t.deps.store.read((db) => readMfaStatus(db, user.id, sessionId)), {
      isMfaEnabled: false,
      passedAt: undefined,
    });
    assert.equal(await isMfaEnabled(user.id), false);
    assert.deepEqual((await session(await login(t, user.username, user.password))).authQueries, []);
  });

  it('lets an admin, and only an admin, remove any identity MFA without a code', async () => {
    const user = await createUser(t, admin);
    const token = await login(t, user.username, user.password);
    await enrollVerifiedMfa(t, token);
    assertError(await call('DELETE', `${management}/identities/${user.id}/mfa`, token), 401, 'UNAUTHORIZED');
    assertError(await call('DELETE', `${management}/identities/nobody/mfa`, admin), 404, 'NOT_FOUND');
    assert.equal((await call('DELETE', `${management}/identities/${user.id}/mfa`, admin)).status, 200);
    assert.equal(await isMfaEnabled(user.id), false);
    assertError(await call('GET', MFA, token), 404, 'NOT_FOUND');
  });

  it('serves the same operations on the management API', async () => {
    const user = await createUser(t, admin);
    const token = await login(t, user.username, user.password, 'management');
    const { secret } = await enrollVerifiedMfa(t, token, 'management');
    const partial = await login(t, user.username, user.password, 'management');
    assertError(await call('GET', `${management}/current-identity`, partial), 401, 'UNAUTHORIZED');
    assert.equal(
      (await call('POST', `${management}/authenticate/mfa`, partial, { code: totpCode(secret, t.clock()) })).status,
      200,
    );
    assert.equal((await call('GET', `${management}/current-identity`, partial)).status, 200);
  });
});

describe('MFA code throttling', () => {
  let t: TestApp;
  let admin: string;
  before(async () => {
    t = await buildTestApp({ settings: { loginThrottleUsernameFailures: 3 } });
    admin = await t.loginAsAdmin();
  });
  after(() => t.close());

  it('refuses codes with 429 after the allowed failures, even the right one, until the window ends', async () => {
    const user = await createUser(t, admin);
    const { secret } = await enrollVerifiedMfa(t, await login(t, user.username, user.password));
    const token = await login(t, user.username, user.password);
    const attempt = (code: string) =>
      t.call({ method: 'POST', url: `${client}/authenticate/mfa`, token, payload: { code } });
    for (let i = 0; i < 3; i++) assertError(await attempt(String(100000 + i)), 400, 'MFA_INVALID_TOKEN');
    const refused = await attempt(totpCode(secret, t.clock()));
    assertError(refused, 429, 'RATE_LIMITED');
    assert.ok(Number(refused.headers['retry-after']) > 0);
    t.clock.advance(5 * 60_000);
    assert.equal((await attempt(totpCode(secret, t.clock()))).status, 200);
  });
});
