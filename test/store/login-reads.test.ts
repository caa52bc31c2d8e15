// A password login reads in two statements what it read in six (issue 33): the throttle's windows with the
// username's candidate before the hash (src/store/queries/password-login.ts), and the identity, its policy, the
// policy's signers and the MFA state in the transaction (identityLoginPolicy). Each must answer what the separate
// reads answer, on either store (this file runs on SQLite in `npm test` and on PostgreSQL in `npm run test:postgres`).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { formatTimestamp } from '../../src/lib/clock.js';
import { identityLoginPolicy } from '../../src/store/queries/auth-policies.js';
import { findRow } from '../../src/store/queries/entities.js';
import { signerBy } from '../../src/store/queries/external-jwt-signers.js';
import { countFailures, openFailureWindows } from '../../src/store/queries/login-failures.js';
import { mfaOf } from '../../src/store/queries/mfa.js';
import { passwordCandidate } from '../../src/store/queries/password-login.js';
import type { Db } from '../../src/store/store.js';
import { createAuthPolicy, createEntity, createUser, login, type UserFixture } from '../support/factories.js';
import { enrollVerifiedMfa } from '../support/mfa.js';
import { buildTestApp, type TestApp } from '../support/test-app.js';

const unique = (prefix: string) => `${prefix}-${Math.random().toString(36).slice(2, 9)}`;

describe('what a login reads, in one statement each side of the hash', () => {
  let t: TestApp;
  let withMfa: UserFixture;
  let requiringDisabled: UserFixture;
  let plain: UserFixture;
  let signers: { enabled: string; disabled: string; other: string };

  const signer = (admin: string, enabled: boolean) =>
    createEntity(t, admin, 'external-jwt-signers', {
      name: unique('signer'),
      enabled,
      issuer: `https://${unique('idp')}.example`,
      audience: 'ziti',
      jwksEndpoint: 'https://idp.example/.well-known/jwks.json',
    });

  before(async () => {
    t = await buildTestApp();
    const admin = await t.loginAsAdmin();
    signers = {
      enabled: await signer(admin, true),
      disabled: await signer(admin, false),
      other: await signer(admin, true),
    };
    const allowing = await createAuthPolicy(t, admin, {
      extJwt: { allowedSigners: [signers.other, signers.enabled] },
      secondary: { requireExtJwtSigner: signers.enabled },
      updb: { maxAttempts: 4, lockoutDurationMinutes: 7 },
    });
    const requiring = await createAuthPolicy(t, admin, { secondary: { requireExtJwtSigner: signers.disabled } });
    withMfa = await createUser(t, admin, { authPolicyId: allowing });
    requiringDisabled = await createUser(t, admin, { authPolicyId: requiring, isAdmin: true });
    plain = await createUser(t, admin);
    await enrollVerifiedMfa(t, await login(t, withMfa.username, withMfa.password));
  });
  after(() => t.close());

  /** What the separate reads answered: the identity's and policy's rows, the MFA record, the required signer. */
  async function separately(db: Db, identityId: string) {
    const identity = await findRow(db, 'identities', identityId);
    const policy = await findRow(db, 'auth_policies', String(identity?.auth_policy_id));
    const required = policy?.secondary_require_ext_jwt_signer;
    return {
      identity,
      policy,
      mfaVerified: (await mfaOf(db, identityId))?.is_verified ?? null,
      requiredEnabled: typeof required === 'string' ? ((await signerBy(db, 'id', required))?.enabled ?? null) : null,
    };
  }

  it('answers the identity, its policy and signers, the required signer and the MFA state as the separate reads', async () => {
    for (const user of [withMfa, requiringDisabled, plain]) {
      const [row, expected] = await t.deps.store.read(async (db) => [
        await identityLoginPolicy(db, user.id),
        await separately(db, user.id),
      ]);
      assert.ok(row && expected.identity && expected.policy);
      for (const column of [
        'id',
        'name',
        'auth_policy_id',
        'is_admin',
        'is_default_admin',
        'disabled_at',
        'disabled_until',
      ])
        assert.equal(row[column as keyof typeof row], expected.identity[column], column);
      assert.equal(row.policy_id, expected.policy.id);
      for (const column of [
        'primary_cert_allowed',
        'primary_cert_allow_expired_certs',
        'primary_updb_allowed',
        'primary_updb_max_attempts',
        'primary_updb_lockout_duration_minutes',
        'primary_ext_jwt_allowed',
        'secondary_require_ext_jwt_signer',
        'secondary_require_totp',
      ])
        assert.equal(row[column as keyof typeof row], expected.policy[column], column);
      assert.equal(row.mfa_verified, expected.mfaVerified);
      assert.equal(row.required_signer_enabled, expected.requiredEnabled);
    }
    const [mfa, disabled, none] = await t.deps.store.read(async (db) => [
      await identityLoginPolicy(db, withMfa.id),
      await identityLoginPolicy(db, requiringDisabled.id),
      await identityLoginPolicy(db, plain.id),
    ]);
    assert.deepEqual(mfa?.allowedSigners, [signers.enabled, signers.other].sort());
    assert.deepEqual([mfa?.mfa_verified, mfa?.required_signer_enabled, mfa?.primary_updb_max_attempts], [1, 1, 4]);
    assert.deepEqual([disabled?.required_signer_enabled, disabled?.is_admin, disabled?.allowedSigners], [0, 1, []]);
    assert.deepEqual([none?.mfa_verified, none?.required_signer_enabled], [null, null]);
    assert.equal(await t.deps.store.read((db) => identityLoginPolicy(db, 'no-such-identity')), undefined);
  });

  it("answers the username's candidate and the throttle's open windows as the separate reads", async () => {
    const now = t.clock();
    const later = (ms: number) => formatTimestamp(new Date(now.getTime() + ms));
    const keys = [`username:${plain.username}`, `address:${unique('10.0.0')}`, `username-from:x ${plain.username}`];
    await t.deps.store.transaction((tx) => countFailures(tx, keys.slice(0, 2), formatTimestamp(now), later(60_000)), {
      bookkeeping: true,
      touches: [],
    });
    for (const at of [formatTimestamp(now), later(120_000)]) {
      const [read, windows, authenticator] = await t.deps.store.read(async (db) => [
        await passwordCandidate(db, plain.username, keys, at),
        await openFailureWindows(db, keys, at),
        await findRow(db, 'authenticators', plain.authenticatorId),
      ]);
      const byKey = (list: readonly { key: string }[]) => [...list].sort((a, b) => a.key.localeCompare(b.key));
      assert.deepEqual(
        byKey(read.windows),
        byKey(windows.map((w) => ({ key: w.key, failures: Number(w.failures), windowEndsAt: w.windowEndsAt }))),
      );
      assert.equal(read.windows.length, at === formatTimestamp(now) ? 2 : 0);
      assert.ok(read.candidate && authenticator);
      for (const column of ['id', 'identity_id', 'password_hash', 'password_salt', 'failed_attempts'] as const)
        assert.equal(read.candidate[column], authenticator[column], column);
      assert.deepEqual(
        [read.candidate.primary_updb_allowed, read.candidate.disabled_at, read.candidate.disabled_until],
        [1, null, null],
      );
    }
    const missing = await t.deps.store.read((db) =>
      passwordCandidate(db, unique('nobody'), keys, formatTimestamp(now)),
    );
    assert.equal(missing.candidate, undefined);
    assert.equal(missing.windows.length, 2);
  });
});
