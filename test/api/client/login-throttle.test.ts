// Login throttling for everyone (src/auth/login-throttle.ts): by source address, by username from an address and by
// username from all addresses; distinct source addresses come from inject()'s remoteAddress.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../../support/test-app.js';
import { assertError, type CallResult } from '../../support/conformance.js';
import { createUser } from '../../support/factories.js';
import { CLIENT as client } from '../../support/api-paths.js';

let counter = 0;
const unique = (prefix: string) => `${prefix}-${++counter}`;

const passwordLogin = (t: TestApp, username: string, password: string, remoteAddress?: string) =>
  t.call({
    method: 'POST',
    url: `${client}/authenticate?method=password`,
    payload: { username, password },
    ...(remoteAddress ? { remoteAddress } : {}),
  });

describe('login throttling for everyone', () => {
  let t: TestApp;
  let admin: string;
  before(async () => {
    t = await buildTestApp({
      settings: {
        loginThrottleUsernameFailures: 3,
        loginThrottleUsernameFailuresAllAddresses: 6,
        loginThrottleAddressFailures: 6,
        loginThrottleWindowMs: 60_000,
      },
    });
    admin = await t.loginAsAdmin();
  });
  after(() => t.close());

  const statuses = (results: CallResult[]) => results.map((result) => result.status);

  it('refuses a username from an address with 429 once that address used up its failures, even with the right password, until the window ends', async () => {
    const user = await createUser(t, admin);
    const other = await createUser(t, admin);
    for (let i = 0; i < 3; i++)
      assertError(await passwordLogin(t, user.username, 'wrong-password', '10.0.0.1'), 401, 'INVALID_AUTH');
    const refused = await passwordLogin(t, user.username, user.password, '10.0.0.1');
    assertError(refused, 429, 'RATE_LIMITED');
    assert.equal(refused.headers['retry-after'], '60');
    // The owner from another address, and other users from the same one, are not affected.
    assert.equal((await passwordLogin(t, user.username, user.password, '10.0.0.2')).status, 200);
    assert.equal((await passwordLogin(t, other.username, other.password, '10.0.0.1')).status, 200);
    t.clock.advance(60_000);
    assert.equal((await passwordLogin(t, user.username, user.password, '10.0.0.1')).status, 200);
  });

  it("counts unknown usernames too, and clears the address's count of a username on success", async () => {
    const user = await createUser(t, admin);
    for (let i = 0; i < 2; i++)
      assertError(await passwordLogin(t, user.username, 'wrong-password', '10.0.1.1'), 401, 'INVALID_AUTH');
    assert.equal((await passwordLogin(t, user.username, user.password, '10.0.1.1')).status, 200);
    for (let i = 0; i < 2; i++)
      assertError(await passwordLogin(t, user.username, 'wrong-password', '10.0.1.1'), 401, 'INVALID_AUTH');
    assert.equal((await passwordLogin(t, user.username, user.password, '10.0.1.1')).status, 200);
    for (let i = 0; i < 3; i++)
      assertError(await passwordLogin(t, 'nobody-at-all', 'wrong-password', '10.0.1.2'), 401, 'INVALID_AUTH');
    assertError(await passwordLogin(t, 'nobody-at-all', 'wrong-password', '10.0.1.2'), 429, 'RATE_LIMITED');
  });

  it('refuses an address that fails across many usernames; other addresses and users are unaffected', async () => {
    const user = await createUser(t, admin);
    for (let i = 0; i < 6; i++)
      assertError(await passwordLogin(t, unique('sprayed'), 'guess-password', '10.0.2.1'), 401, 'INVALID_AUTH');
    assertError(await passwordLogin(t, user.username, user.password, '10.0.2.1'), 429, 'RATE_LIMITED');
    assert.equal((await passwordLogin(t, user.username, user.password, '10.0.2.2')).status, 200);
  });

  it('bounds guessing under concurrency: parallel attempts from one address are counted one by one', async () => {
    const user = await createUser(t, admin);
    const results = await Promise.all(
      Array.from({ length: 12 }, () => passwordLogin(t, user.username, 'wrong-password', '10.0.3.1')),
    );
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
      for (let i = 0; i < 5; i++)
        answers.push((await passwordLogin(t, user.username, `guess-${address}-${i}`, address)).status);
      return answers;
    };
    // Two addresses use up the username's 6 failures from every address, 3 each.
    assert.deepEqual(await guessesFrom('10.0.4.1'), [401, 401, 401, 429, 429]);
    assert.deepEqual(await guessesFrom('10.0.4.2'), [401, 401, 401, 429, 429]);
    // Every further address gets one guess, not three.
    for (let address = 3; address <= 20; address++)
      assert.deepEqual(await guessesFrom(`10.0.4.${address}`), [401, 429, 429, 429, 429]);
    // The owner logs in from an address that never failed, repeatedly, at once.
    for (let i = 0; i < 3; i++)
      assert.equal((await passwordLogin(t, user.username, user.password, '10.0.5.1')).status, 200);
    // One typo from an address while the username is being guessed: that address waits for its window.
    assertError(await passwordLogin(t, user.username, 'typo-password', '10.0.5.2'), 401, 'INVALID_AUTH');
    const waits = await passwordLogin(t, user.username, user.password, '10.0.5.2');
    assertError(waits, 429, 'RATE_LIMITED');
    assert.equal(waits.headers['retry-after'], '60');
    t.clock.advance(60_000);
    assert.equal((await passwordLogin(t, user.username, user.password, '10.0.5.2')).status, 200);
  });

  it('counts an IPv6 /64 as one address, and an IPv4-mapped address as its IPv4 address', async () => {
    for (let i = 0; i < 6; i++)
      assertError(
        await passwordLogin(t, unique('v6-sprayed'), 'guess-password', `2001:db8:1:2::${i + 1}`),
        401,
        'INVALID_AUTH',
      );
    assertError(
      await passwordLogin(t, unique('v6-sprayed'), 'guess-password', '2001:db8:1:2:ffff:ffff:ffff:ffff'),
      429,
      'RATE_LIMITED',
    );
    assertError(await passwordLogin(t, unique('v6-sprayed'), 'guess-password', '2001:db8:1:3::1'), 401, 'INVALID_AUTH');
    for (let i = 0; i < 6; i++)
      assertError(await passwordLogin(t, unique('v4-sprayed'), 'guess-password', '10.0.6.1'), 401, 'INVALID_AUTH');
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

  it(
    'takes logins of one account side by side: one held inside its password check does not hold up the next',
    { timeout: 20_000 },
    async () => {
      const user = await createUser(t, admin);
      const throttle = t.deps.loginThrottle;
      const admit = throttle.admit.bind(throttle);
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let first = true;
      // The login from 192.0.2.3 waits after its throttle check, before its hash, until the other has been answered.
      // Picked by its address, not by arrival: on PostgreSQL each request's store refresh is a round trip of its own,
      // so the second request may reach its check first.
      throttle.admit = async (...args) => {
        await admit(...args);
        if (first && args[0].some((key) => key.key.includes('192.0.2.3'))) {
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
    },
  );
});
