import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../../support/test-app.js';
import { assertError, type CallResult } from '../../support/conformance.js';
import { createAuthPolicy, createEntity, createIdentity, createUser, login, type AuthPolicyOverrides, type UserFixture } from '../../support/factories.js';

const client = '/edge/client/v1';
const management = '/edge/management/v1';

let counter = 0;
const unique = (prefix: string) => `${prefix}-${++counter}`;

const passwordLogin = (t: TestApp, username: string, password: string, remoteAddress?: string) =>
  t.call({ method: 'POST', url: `${client}/authenticate?method=password`, payload: { username, password }, ...(remoteAddress ? { remoteAddress } : {}) });

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
  const detail = async (id: string) => dataOf<{ disabled: boolean; disabledUntil: string | null }>(await t.call({ method: 'GET', url: `${management}/identities/${id}`, token: admin }));

  it('locks the identity at the maxAttempts-th consecutive failure, ends its sessions, and lifts it after the duration', async () => {
    const user = await userUnder({ maxAttempts: 3, lockoutDurationMinutes: 5 });
    const token = await login(t, user.username, user.password);
    for (let i = 0; i < 3; i++) assertError(await passwordLogin(t, user.username, 'wrong-password'), 401, 'INVALID_AUTH');
    assertError(await passwordLogin(t, user.username, user.password), 401, 'INVALID_AUTH');
    assertError(await t.call({ method: 'GET', url: `${client}/current-identity`, token }), 401, 'UNAUTHORIZED');
    const locked = await detail(user.id);
    assert.deepEqual([locked.disabled, locked.disabledUntil], [true, new Date(t.clock().getTime() + 5 * 60_000).toISOString()]);
    t.clock.advance(5 * 60_000 + 1);
    admin = await t.loginAsAdmin();
    assert.equal((await passwordLogin(t, user.username, user.password)).status, 200);
    // The count started again: two more failures do not lock.
    for (let i = 0; i < 2; i++) assertError(await passwordLogin(t, user.username, 'wrong-password'), 401, 'INVALID_AUTH');
    assert.equal((await passwordLogin(t, user.username, user.password)).status, 200);
  });

  it('counts consecutive failures only: a success resets the count (upstream counted successes too)', async () => {
    const user = await userUnder({ maxAttempts: 3, lockoutDurationMinutes: 5 });
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 2; i++) assertError(await passwordLogin(t, user.username, 'wrong-password'), 401, 'INVALID_AUTH');
      assert.equal((await passwordLogin(t, user.username, user.password)).status, 200, `round ${round}`);
    }
    assert.equal((await detail(user.id)).disabled, false);
  });

  it('locks indefinitely with lockoutDurationMinutes 0, until an admin enables the identity', async () => {
    const user = await userUnder({ maxAttempts: 2, lockoutDurationMinutes: 0 });
    for (let i = 0; i < 2; i++) assertError(await passwordLogin(t, user.username, 'wrong-password'), 401, 'INVALID_AUTH');
    t.clock.advance(24 * 60 * 60_000);
    admin = await t.loginAsAdmin();
    assertError(await passwordLogin(t, user.username, user.password), 401, 'INVALID_AUTH');
    const locked = await detail(user.id);
    assert.deepEqual([locked.disabled, locked.disabledUntil], [true, undefined]);
    assert.equal((await t.call({ method: 'POST', url: `${management}/identities/${user.id}/enable`, token: admin })).status, 200);
    assert.equal((await passwordLogin(t, user.username, user.password)).status, 200);
  });

  it('never locks under maxAttempts 0 (the default policy)', async () => {
    const user = await createUser(t, admin);
    for (let i = 0; i < 8; i++) assertError(await passwordLogin(t, user.username, 'wrong-password'), 401, 'INVALID_AUTH');
    assert.equal((await passwordLogin(t, user.username, user.password)).status, 200);
  });

  it('refuses a disabled identity at every login, and its existing sessions, with one rule', async () => {
    const user = await createUser(t, admin);
    const token = await login(t, user.username, user.password);
    await t.call({ method: 'POST', url: `${management}/identities/${user.id}/disable`, token: admin, payload: { durationMinutes: 10 } });
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
      for (let i = 0; i < 2; i++) assertError(await passwordLogin(t, user.username, 'wrong-password'), 401, 'INVALID_AUTH');
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

describe('login throttling for everyone', () => {
  let t: TestApp;
  let admin: string;
  before(async () => {
    t = await buildTestApp({
      settings: { loginThrottleUsernameFailures: 3, loginThrottleUsernameFailuresAllAddresses: 6, loginThrottleAddressFailures: 6, loginThrottleWindowMs: 60_000 },
    });
    admin = await t.loginAsAdmin();
  });
  after(() => t.close());

  const statuses = (results: CallResult[]) => results.map((result) => result.status);

  it('refuses a username from an address with 429 once that address used up its failures, even with the right password, until the window ends', async () => {
    const user = await createUser(t, admin);
    const other = await createUser(t, admin);
    for (let i = 0; i < 3; i++) assertError(await passwordLogin(t, user.username, 'wrong-password', '10.0.0.1'), 401, 'INVALID_AUTH');
    const refused = await passwordLogin(t, user.username, user.password, '10.0.0.1');
    assertError(refused, 429, 'RATE_LIMITED');
    assert.equal(refused.headers['retry-after'], '60');
    // The owner from another address, and other users from the same one, are not affected.
    assert.equal((await passwordLogin(t, user.username, user.password, '10.0.0.2')).status, 200);
    assert.equal((await passwordLogin(t, other.username, other.password, '10.0.0.1')).status, 200);
    t.clock.advance(60_000);
    assert.equal((await passwordLogin(t, user.username, user.password, '10.0.0.1')).status, 200);
  });

  it('counts unknown usernames too, and clears the address\'s count of a username on success', async () => {
    const user = await createUser(t, admin);
    for (let i = 0; i < 2; i++) assertError(await passwordLogin(t, user.username, 'wrong-password', '10.0.1.1'), 401, 'INVALID_AUTH');
    assert.equal((await passwordLogin(t, user.username, user.password, '10.0.1.1')).status, 200);
    for (let i = 0; i < 2; i++) assertError(await passwordLogin(t, user.username, 'wrong-password', '10.0.1.1'), 401, 'INVALID_AUTH');
    assert.equal((await passwordLogin(t, user.username, user.password, '10.0.1.1')).status, 200);
    for (let i = 0; i < 3; i++) assertError(await passwordLogin(t, 'nobody-at-all', 'wrong-password', '10.0.1.2'), 401, 'INVALID_AUTH');
    assertError(await passwordLogin(t, 'nobody-at-all', 'wrong-password', '10.0.1.2'), 429, 'RATE_LIMITED');
  });

  it('refuses an address that fails across many usernames; other addresses and users are unaffected', async () => {
    const user = await createUser(t, admin);
    for (let i = 0; i < 6; i++) assertError(await passwordLogin(t, unique('sprayed'), 'guess-password', '10.0.2.1'), 401, 'INVALID_AUTH');
    assertError(await passwordLogin(t, user.username, user.password, '10.0.2.1'), 429, 'RATE_LIMITED');
    assert.equal((await passwordLogin(t, user.username, user.password, '10.0.2.2')).status, 200);
  });

  it('bounds guessing under concurrency: parallel attempts from one address are counted one by one', async () => {
    const user = await createUser(t, admin);
    const results = await Promise.all(Array.from({ length: 12 }, () => passwordLogin(t, user.username, 'wrong-password', '10.0.3.1')));
    assert.deepEqual(statuses(results).sort(), [...Array<number>(3).fill(401), ...Array<number>(9).fill(429)]);
    // Answered 429 whatever the password: a right one racing the used-up count learns nothing either.
    const racing = await Promise.all([
      ...Array.from({ length: 4 }, () => passwordLogin(t, user.username, 'wrong-password', '10.0.3.2')),
      passwordLogin(t, user.username, user.password, '10.0.3.2'),
    ]);
    assert.ok(statuses(racing).filter((status) => status === 401).length <= 3, String(statuses(racing)));
  });

  it('slows guessing of one username from many addresses to one guess per address, and never refuses the owner from an address that never failed', async () => {
    const user = await createUser(t, admin);
    const guessesFrom = async (address: string) => {
      const answers: number[] = [];
      for (let i = 0; i < 5; i++) answers.push((await passwordLogin(t, user.username, `guess-${address}-${i}`, address)).status);
      return answers;
    };
    // Two addresses use up the username's 6 failures from every address, 3 each.
    assert.deepEqual(await guessesFrom('10.0.4.1'), [401, 401, 401, 429, 429]);
    assert.deepEqual(await guessesFrom('10.0.4.2'), [401, 401, 401, 429, 429]);
    // Every further address gets one guess, not three.
    for (let address = 3; address <= 20; address++) assert.deepEqual(await guessesFrom(`10.0.4.${address}`), [401, 429, 429, 429, 429]);
    // The owner logs in from an address that never failed, repeatedly, at once.
    for (let i = 0; i < 3; i++) assert.equal((await passwordLogin(t, user.username, user.password, '10.0.5.1')).status, 200);
    // One typo from an address while the username is being guessed: that address waits for its window.
    assertError(await passwordLogin(t, user.username, 'typo-password', '10.0.5.2'), 401, 'INVALID_AUTH');
    const waits = await passwordLogin(t, user.username, user.password, '10.0.5.2');
    assertError(waits, 429, 'RATE_LIMITED');
    assert.equal(waits.headers['retry-after'], '60');
    t.clock.advance(60_000);
    assert.equal((await passwordLogin(t, user.username, user.password, '10.0.5.2')).status, 200);
  });

  it('counts an IPv6 /64 as one address, and an IPv4-mapped address as its IPv4 address', async () => {
    for (let i = 0; i < 6; i++) assertError(await passwordLogin(t, unique('v6-sprayed'), 'guess-password', `2001:db8:1:2::${i + 1}`), 401, 'INVALID_AUTH');
    assertError(await passwordLogin(t, unique('v6-sprayed'), 'guess-password', '2001:db8:1:2:ffff:ffff:ffff:ffff'), 429, 'RATE_LIMITED');
    assertError(await passwordLogin(t, unique('v6-sprayed'), 'guess-password', '2001:db8:1:3::1'), 401, 'INVALID_AUTH');
    for (let i = 0; i < 6; i++) assertError(await passwordLogin(t, unique('v4-sprayed'), 'guess-password', '10.0.6.1'), 401, 'INVALID_AUTH');
    assertError(await passwordLogin(t, unique('v4-sprayed'), 'guess-password', '::ffff:10.0.6.1'), 429, 'RATE_LIMITED');
  });
});

describe('the attack of issue 21 at the default limits', () => {
  let t: TestApp;
  let admin: string;
  before(async () => {
    t = await buildTestApp();
    admin = await t.loginAsAdmin();
  });
  after(() => t.close());

  it('300 wrong passwords from address A: A gets 429 after 10; the owner from address B logs in at once', async () => {
    const user = await createUser(t, admin);
    const answers = new Map<number, number>();
    for (let i = 0; i < 300; i++) {
      const { status } = await passwordLogin(t, user.username, `wrong-password-${i}`, '192.0.2.1');
      answers.set(status, (answers.get(status) ?? 0) + 1);
    }
    assert.deepEqual(Object.fromEntries(answers), { 401: 10, 429: 290 });
    assert.equal((await passwordLogin(t, user.username, user.password, '192.0.2.2')).status, 200);
    assertError(await passwordLogin(t, user.username, user.password, '192.0.2.1'), 429, 'RATE_LIMITED');
  });

  it('takes logins of one account side by side: one held inside its password check does not hold up the next', { timeout: 20_000 }, async () => {
    const user = await createUser(t, admin);
    const throttle = t.deps.loginThrottle;
    const admit = throttle.admit.bind(throttle);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let first = true;
    // The first login waits after its throttle check, before its hash, until the second has been answered.
    throttle.admit = async (...args) => {
      await admit(...args);
      if (first) {
        first = false;
        await held;
      }
    };
    try {
      const holding = passwordLogin(t, user.username, user.password, '192.0.2.3');
      assert.equal((await passwordLogin(t, user.username, user.password, '192.0.2.4')).status, 200);
      release();
      assert.equal((await holding).status, 200);
    } finally {
      throttle.admit = admit;
      release();
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
    strict = await createAuthPolicy(t, admin, { updb: { minPasswordLength: 10, requireMixedCase: true, requireNumberChar: true, requireSpecialChar: true } });
  });
  after(() => t.close());

  const weak = ['Sh0rt!pw', 'alllowercase1!', 'ALLUPPERCASE1!', 'NoNumbersHere!', 'NoSpecial1234', 'x'.repeat(101)];
  const good = 'Str0ng!Passw0rd';

  it('applies to admin authenticator create and update', async () => {
    const identityId = await createIdentity(t, admin, { authPolicyId: strict });
    for (const password of weak) {
      const result = await t.call({ method: 'POST', url: `${management}/authenticators`, token: admin, payload: { method: 'updb', identityId, username: unique('u'), password } });
      assertError(result, 400, 'COULD_NOT_VALIDATE', 'password');
      assert.ok(!result.text.includes(password), 'the password is never echoed');
    }
    const id = await createEntity(t, admin, 'authenticators', { method: 'updb', identityId, username: unique('u'), password: good });
    assertError(await t.call({ method: 'PATCH', url: `${management}/authenticators/${id}`, token: admin, payload: { password: 'weakpassword' } }), 400, 'COULD_NOT_VALIDATE', 'password');
    assert.equal((await t.call({ method: 'PATCH', url: `${management}/authenticators/${id}`, token: admin, payload: { password: `${good}2` } })).status, 200);
  });

  it('applies to the self-service change', async () => {
    // The fixture's password is set under the default policy; then the identity moves to the strict one.
    const user = await createUser(t, admin);
    assert.equal((await t.call({ method: 'PATCH', url: `${management}/identities/${user.id}`, token: admin, payload: { authPolicyId: strict } })).status, 200);
    const token = await login(t, user.username, user.password);
    const url = `${client}/current-identity/authenticators/${user.authenticatorId}`;
    const change = (password: string) => t.call({ method: 'PATCH', url, token, payload: { currentPassword: user.password, password } });
    assertError(await change('weakpassword'), 400, 'COULD_NOT_VALIDATE', 'password');
    assert.equal((await change(good)).status, 200);
    assert.equal((await passwordLogin(t, user.username, good)).status, 200);
  });

  it('applies to updb enrollment, and a refused password leaves the token usable', async () => {
    const username = unique('enrollee');
    const identityId = await createIdentity(t, admin, { authPolicyId: strict, enrollment: { updb: username } });
    const detail = await t.call({ method: 'GET', url: `${management}/identities/${identityId}`, token: admin });
    const token = dataOf<{ enrollment: { updb: { token: string } } }>(detail).enrollment.updb.token;
    const enroll = (password: string) => t.call({ method: 'POST', url: `${client}/enroll/updb?token=${token}`, payload: { password } });
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
    const created = await t.call({ method: 'POST', url: `${management}/enrollments`, token: admin, payload: { method: 'updb', identityId: user.id, username: unique('second'), expiresAt: new Date(t.clock().getTime() + 3_600_000).toISOString() } });
    assert.equal(created.status, 201, created.text);
    const enrollment = dataOf<{ token: string }>(await t.call({ method: 'GET', url: `${management}/enrollments/${dataOf<{ id: string }>(created).id}`, token: admin }));
    const enroll = () => t.call({ method: 'POST', url: `${client}/enroll/updb?token=${enrollment.token}`, payload: { password: 'another-password' } });
    assertError(await enroll(), 409, 'MAX_AUTHENTICATOR_METHODS_REACHED');
    const authenticators = await t.call({ method: 'GET', url: `${management}/identities/${user.id}/authenticators`, token: admin });
    assert.equal(dataOf<unknown[]>(authenticators).length, 1);
    // The token was not spent: once the old authenticator is gone, it works.
    assert.equal((await t.call({ method: 'DELETE', url: `${management}/authenticators/${user.authenticatorId}`, token: admin })).status, 200);
    assert.equal((await enroll()).status, 200);
  });
});
