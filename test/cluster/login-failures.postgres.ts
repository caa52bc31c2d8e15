// A failed password login's bookkeeping (the failure count, the lockout) on two instances of one PostgreSQL schema
// (npm run test:postgres; fails without ZITI_TEST_DATABASE_URL): it writes in the identity's own write area, so it
// runs beside another identity's open write instead of waiting for the strict turn (issue 26), and the count is
// still one count across instances.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { writeAreas } from '../../src/store/store.js';
import { assertError } from '../support/conformance.js';
import { createAuthPolicy, createUser, type UserFixture } from '../support/factories.js';
import { buildTestApp, type TestApp } from '../support/test-app.js';
import { postgresSchema, type SharedDatabase } from '../support/two-instances.js';
import { CLIENT as client, MANAGEMENT as management } from '../support/api-paths.js';

describe('password failures on two instances of one PostgreSQL database', () => {
  let database: SharedDatabase;
  let a: TestApp;
  let b: TestApp;
  let admin: string;
  const passwordLogin = (t: TestApp, username: string, password: string) =>
    t.call({ method: 'POST', url: `${client}/authenticate?method=password`, payload: { username, password } });

  before(async () => {
    database = await postgresSchema();
    a = await buildTestApp(database.options);
    b = await buildTestApp(database.options);
    admin = await a.loginAsAdmin();
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await database?.drop();
  });

  async function lockableUser(): Promise<UserFixture> {
    const policy = await createAuthPolicy(a, admin, { updb: { maxAttempts: 3, lockoutDurationMinutes: 5 } });
    return createUser(a, admin, { authPolicyId: policy });
  }

  it(
    "counts and locks in the identity's area: beside another identity's open write, one count across instances",
    { timeout: 60_000 },
    async () => {
      const guessed = await lockableUser();
      const other = await lockableUser();
      let open = (): void => undefined;
      const gate = new Promise<void>((resolve) => (open = resolve));
      let started = (): void => undefined;
      const isHeld = new Promise<void>((resolve) => (started = resolve));
      // Another identity's write stays open on A (as a slow login or posture report of it would) until the failures are done.
      const held = a.deps.store.transaction(
        async () => {
          started();
          await gate;
        },
        { touches: [writeAreas.identity(other.id)] },
      );
      try {
        await isHeld;
        // Were the failure bookkeeping strict, each of these would wait for the held write, and the test for its timeout.
        for (const t of [a, b, a])
          assertError(await passwordLogin(t, guessed.username, 'wrong-password'), 401, 'INVALID_AUTH');
      } finally {
        open();
        await held;
      }
      // The third failure, counted with the two before it whichever instance saw them, locked the identity.
      assertError(await passwordLogin(b, guessed.username, guessed.password), 401, 'INVALID_AUTH');
      const shown = await b.call({ method: 'GET', url: `${management}/identities/${guessed.id}`, token: admin });
      assert.equal((shown.body as { data: { disabled: boolean } }).data.disabled, true, shown.text);
      // The other identity, whose write was open meanwhile, was not touched.
      assert.equal((await passwordLogin(b, other.username, other.password)).status, 200);
    },
  );
});
