import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../../support/test-app.js';
import { assertError, type CallResult } from '../../support/conformance.js';
import {
  createAuthPolicy,
  createEntity,
  createIdentity,
  createUser,
  login,
  type AuthPolicyOverrides,
  type UserFixture,
} from '../../support/factories.js';
import { CLIENT as client, MANAGEMENT as management } from '../../support/api-paths.js';

let counter = 0;
const unique = (prefix: string) => `${prefix}-${++counter}`;

const passwordLogin = (t: TestApp, username: string, password: string, remoteAddress?: string) =>
  t.call({
    method: 'POST',
    url: `${client}/authenticate?method=password`,
    payload: { username, password },
    ...(remoteAddress ? { remoteAddress } : {}),
  });

const dataOf = <T>(result: CallResult) => (result.body as { data: T }).data;

describe('lockout after consecutive password failures (auth policy)', () => {
  let t: TestApp;
  let admin: string;
  before(async () => {
    t = await buildTestApp();
    admin = await t.loginAsAdmin();
  });
  after(() => t.close());

  async function userUnder(updb: AuthPolicyOverrides['updb']): Promise<UserFixture> {
    const policy = await createAuthPolicy(t, admin, { updb });
    return createUser(t, admin, { authPolicyId: policy });
  }
  const detail = async (id: string) =>
    dataOf<{ disabled: boolean; disabledUntil: string | null }>(
      await t.call({ method: 'GET', url: `${management}/identities/${id}`, token: admin }),
    );

  it('locks the identity at the maxAttempts-th consecutive failure, ends its sessions, and lifts it after the duration', async () => {
    const user = await userUnder({ maxAttempts: 3, lockoutDurationMinutes: 5 });
    const token = await login(t, user.username, user.password);
    for (let i = 0; i < 3; i++)
      assertError(await passwordLogin(t, user.username, 'wrong-password'), 401, 'INVALID_AUTH');
    assertError(await passwordLogin(t, user.username, user.password), 401, 'INVALID_AUTH');
    assertError(await t.call({ method: 'GET', url: `${client}/current-identity`, token }), 401, 'UNAUTHORIZED');
    const locked = await detail(user.id);
    assert.deepEqual(
      [locked.disabled, locked.disabledUntil],
      [true, new Date(t.clock().getTime() + 5 * 60_000).toISOString()],
    );
    t.clock.advance(5 * 60_000 + 1);
    admin = await t.loginAsAdmin();
    assert.equal((await passwordLogin(t, user.username, user.password)).status, 200);
    // The count started again: two more failures do not lock.
    for (let i = 0; i < 2; i++)
      assertError(await passwordLogin(t, user.username, 'wrong-password'), 401, 'INVALID_AUTH');
    assert.equal((await passwordLogin(t, user.username, user.password)).status, 200);
  });

  it('counts consecutive failures only: a success resets the count (upstream counted successes too)', async () => {
    const user = await userUnder({ maxAttempts: 3, lockoutDurationMinutes: 5 });
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 2; i++)
        assertError(await passwordLogin(t, user.username, 'wrong-password'), 401, 'INVALID_AUTH');
      assert.equal((await passwordLogin(t, user.username, user.password)).status, 200, `round ${round}`);
    }
    assert.equal((await detail(user.id)).disabled, false);
  });

  it('locks indefinitely with lockoutDurationMinutes 0, until an admin enables the identity', async () => {
    const user = await userUnder({ maxAttempts: 2, lockoutDurationMinutes: 0 });
    for (let i = 0; i < 2; i++)
      assertError(await passwordLogin(t, user.username, 'wrong-password'), 401, 'INVALID_AUTH');
    t.clock.advance(24 * 60 * 60_000);
    admin = await t.loginAsAdmin();
    assertError(await passwordLogin(t, user.username, user.password), 401, 'INVALID_AUTH');
    const locked = await detail(user.id);
    assert.deepEqual([locked.disabled, locked.disabledUntil], [true, undefined]);
    assert.equal(
      (await t.call({ method: 'POST', url: `${management}/identities/${user.id}/enable`, token: admin })).status,
      200,
    );
    assert.equal((await passwordLogin(t, user.username, user.password)).status, 200);
  });

  it('never locks under maxAttempts 0 (the default policy)', async () => {
    const user = await createUser(t, admin);
    for (let i = 0; i < 8; i++)
      assertError(await passwordLogin(t, user.username, 'wrong-password'), 401, 'INVALID_AUTH');
    assert.equal((await passwordLogin(t, user.username, user.password)).status, 200);
  });

  it('refuses a disabled identity at every login, and its existing sessions, with one rule', async () => {
    const user = await createUser(t, admin);
    const token = await login(t, user.username, user.password);
    await t.call({
      method: 'POST',
      url: `${management}/identities/${user.id}/disable`,
      token: admin,
      payload: { durationMinutes: 10 },
    });
    assertError(await t.call({ method: 'GET', url: `${client}/current-api-session`, token }), 401, 'UNAUTHORIZED');
    assertError(await passwordLogin(t, user.username, user.password), 401, 'INVALID_AUTH');
    t.clock.advance(10 * 60_000 + 1);
    assert.equal((await passwordLogin(t, user.username, user.password)).status, 200);
  });
});

describe('lockout state survives a restart', () => {
  it('keeps the failure count and the lockout in the database', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'ziti-lockout-'));
    const databaseFile = join(folder, 'ctrl.db');
    try {
      let t = await buildTestApp({ databaseFile });
      const admin = await t.loginAsAdmin();
      const policy = await createAuthPolicy(t, admin, { updb: { maxAttempts: 3, lockoutDurationMinutes: 60 } });
      const user = await createUser(t, admin, { authPolicyId: policy });
      for (let i = 0; i < 2; i++)
        assertError(await passwordLogin(t, user.username, 'wrong-password'), 401, 'INVALID_AUTH');
      await t.close();

      t = await buildTestApp({ databaseFile });
      assertError(await passwordLogin(t, user.username, 'wrong-password'), 401, 'INVALID_AUTH');
      assertError(await passwordLogin(t, user.username, user.password), 401, 'INVALID_AUTH');
      await t.close();

      t = await buildTestApp({ databaseFile });
      assertError(await passwordLogin(t, user.username, user.password), 401, 'INVALID_AUTH');
      await t.close();
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe('password rules of the auth policy, wherever a password is set', () => {
  let t: TestApp;
  let admin: string;
  let strict: string;
  before(async () => {
    t = await buildTestApp();
    admin = await t.loginAsAdmin();
    strict = await createAuthPolicy(t, admin, {
      updb: { minPasswordLength: 10, requireMixedCase: true, requireNumberChar: true, requireSpecialChar: true },
    });
  });
  after(() => t.close());

  const weak = ['Sh0rt!pw', 'alllowercase1!', 'ALLUPPERCASE1!', 'NoNumbersHere!', 'NoSpecial1234', 'x'.repeat(101)];
  const good = 'Str0ng!Passw0rd';

  it('applies to admin authenticator create and update', async () => {
    const identityId = await createIdentity(t, admin, { authPolicyId: strict });
    for (const password of weak) {
      const result = await t.call({
        method: 'POST',
        url: `${management}/authenticators`,
        token: admin,
        payload: { method: 'updb', identityId, username: unique('u'), password },
      });
      assertError(result, 400, 'COULD_NOT_VALIDATE', 'password');
      assert.ok(!result.text.includes(password), 'the password is never echoed');
    }
    const id = await createEntity(t, admin, 'authenticators', {
      method: 'updb',
      identityId,
      username: unique('u'),
      password: good,
    });
    assertError(
      await t.call({
        method: 'PATCH',
        url: `${management}/authenticators/${id}`,
        token: admin,
        payload: { password: 'weakpassword' },
      }),
      400,
      'COULD_NOT_VALIDATE',
      'password',
    );
    assert.equal(
      (
        await t.call({
          method: 'PATCH',
          url: `${management}/authenticators/${id}`,
          token: admin,
          payload: { password: `${good}2` },
        })
      ).status,
      200,
    );
  });

  it('applies to the self-service change', async () => {
    // The fixture's password is set under the default policy; then the identity moves to the strict one.
    const user = await createUser(t, admin);
    assert.equal(
      (
        await t.call({
          method: 'PATCH',
          url: `${management}/identities/${user.id}`,
          token: admin,
          payload: { authPolicyId: strict },
        })
      ).status,
      200,
    );
    const token = await login(t, user.username, user.password);
    const url = `${client}/current-identity/authenticators/${user.authenticatorId}`;
    const change = (password: string) =>
      t.call({ method: 'PATCH', url, token, payload: { currentPassword: user.password, password } });
    assertError(await change('weakpassword'), 400, 'COULD_NOT_VALIDATE', 'password');
    assert.equal((await change(good)).status, 200);
    assert.equal((await passwordLogin(t, user.username, good)).status, 200);
  });

  it('applies to updb enrollment, and a refused password leaves the token usable', async () => {
    const username = unique('enrollee');
    const identityId = await createIdentity(t, admin, { authPolicyId: strict, enrollment: { updb: username } });
    const detail = await t.call({ method: 'GET', url: `${management}/identities/${identityId}`, token: admin });
    const token = dataOf<{ enrollment: { updb: { token: string } } }>(detail).enrollment.updb.token;
    const enroll = (password: string) =>
      t.call({ method: 'POST', url: `${client}/enroll/updb?token=${token}`, payload: { password } });
    assertError(await enroll('weakpassword'), 400, 'COULD_NOT_VALIDATE', 'password');
    assert.equal((await enroll(good)).status, 200);
    assert.equal((await passwordLogin(t, username, good)).status, 200);
  });
});

describe('one write path for authenticators (enrollment included)', () => {
  let t: TestApp;
  let admin: string;
  before(async () => {
    t = await buildTestApp();
    admin = await t.loginAsAdmin();
  });
  after(() => t.close());

  it('refuses a updb enrollment for an identity that already has a password, as POST /authenticators does', async () => {
    const user = await createUser(t, admin);
    const created = await t.call({
      method: 'POST',
      url: `${management}/enrollments`,
      token: admin,
      payload: {
        method: 'updb',
        identityId: user.id,
        username: unique('second'),
        expiresAt: new Date(t.clock().getTime() + 3_600_000).toISOString(),
      },
    });
    assert.equal(created.status, 201, created.text);
    const enrollment = dataOf<{ token: string }>(
      await t.call({
        method: 'GET',
        url: `${management}/enrollments/${dataOf<{ id: string }>(created).id}`,
        token: admin,
      }),
    );
    const enroll = () =>
      t.call({
        method: 'POST',
        url: `${client}/enroll/updb?token=${enrollment.token}`,
        payload: { password: 'another-password' },
      });
    assertError(await enroll(), 409, 'MAX_AUTHENTICATOR_METHODS_REACHED');
    const authenticators = await t.call({
      method: 'GET',
      url: `${management}/identities/${user.id}/authenticators`,
      token: admin,
    });
    assert.equal(dataOf<unknown[]>(authenticators).length, 1);
    // The token was not spent: once the old authenticator is gone, it works.
    assert.equal(
      (await t.call({ method: 'DELETE', url: `${management}/authenticators/${user.authenticatorId}`, token: admin }))
        .status,
      200,
    );
    assert.equal((await enroll()).status, 200);
  });
});
