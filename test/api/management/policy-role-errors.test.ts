// How a policy's invalid roles are reported: upstream's reasons, and its list order in each cause (asked of v1.1.8).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, type CallResult } from '../../support/conformance.js';
import { buildTestApp, type TestApp } from '../../support/test-app.js';

describe('policy role errors', () => {
  let t: TestApp;
  let token: string;
  before(async () => {
    t = await buildTestApp();
    token = await t.loginAsAdmin();
  });
  after(() => t.close());

  const create = (identityRoles: string[]) =>
    t.call({ method: 'POST', url: '/edge/management/v1/service-policies', token, payload: { name: 'roles', type: 'Dial', semantic: 'AllOf', identityRoles } });
  const causeOf = (result: CallResult) => (result.body as { error: { cause: { reason: string; value: string } } }).error.cause;

  it('sorts the roles of a mixed #all and the ids that name nothing, keeps unprefixed roles in the order sent', async () => {
    const mixed = await create(['#zeta', '#all', '#alpha']);
    assertError(mixed, 400, 'COULD_NOT_VALIDATE', 'identityRoles');
    assert.deepEqual(causeOf(mixed), { field: 'identityRoles', reason: 'if using #all, it should be the only role specified', value: '[#all #alpha #zeta]' });
    const missing = await create(['@zz', '@aa']);
    assert.deepEqual(causeOf(missing), { field: 'identityRoles', reason: 'no identities found with the given ids', value: '[aa zz]' });
    const unprefixed = await create(['zz', 'aa']);
    assert.equal(causeOf(unprefixed).value, '[zz aa]');
  });
});
