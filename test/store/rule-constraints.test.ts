// The database's uniqueness behind the check-then-insert rules maps to each rule's own error: a write that got past
// the rule's check (as a concurrent writer's would) is refused by the constraint with the same answer. Runs on
// SQLite (npm test) and on PostgreSQL (npm run test:postgres).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createEnrollment } from '../../src/enrollment/create-enrollment.js';
import { authenticatorRules } from '../../src/entities/authenticator/authenticator.rules.js';
import { ApiError } from '../../src/errors/api-error.js';
import { createIdentity } from '../support/factories.js';
import { buildTestApp, type TestApp } from '../support/test-app.js';

const isApiError = (code: string) => (error: unknown) => error instanceof ApiError && error.code === code;

describe('uniqueness rules backed by constraints', () => {
  let t: TestApp;
  let identityId: string;
  before(async () => {
    t = await buildTestApp();
    identityId = await createIdentity(t, await t.loginAsAdmin());
  });
  after(() => t.close());

  it('a second outstanding enrollment of a method, past makeRoomForEnrollment, is 409 ENROLLMENT_EXISTS from the index', async () => {
    const expiresAt = new Date(t.clock().getTime() + 60_000);
    const twice = t.deps.store.transaction(async (tx) => {
      await createEnrollment(tx, t.deps, { method: 'ott', identityId, expiresAt });
      await createEnrollment(tx, t.deps, { method: 'ott', identityId, expiresAt });
    });
    await assert.rejects(twice, isApiError('ENROLLMENT_EXISTS'));
    // Nothing of the refused transaction stayed: one ott enrollment can still be made.
    await t.deps.store.transaction((tx) => createEnrollment(tx, t.deps, { method: 'ott', identityId, expiresAt }));
  });

  it("an authenticator's (identity, method) index answers MAX_AUTHENTICATOR_METHODS_REACHED; its other indexes keep the field error", () => {
    assert.equal(
      authenticatorRules.uniqueError?.(['identity_id', 'method'])?.code,
      'MAX_AUTHENTICATOR_METHODS_REACHED',
    );
    assert.equal(authenticatorRules.uniqueError?.(['username']), undefined);
  });
});
