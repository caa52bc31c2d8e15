// Arrays of any length in a request answer 400 or work; none reaches SQLite's bound-variable limit as a 500.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, ADMIN_PASSWORD, ADMIN_USERNAME, type TestApp } from '../../support/test-app.js';
import { assertError } from '../../support/conformance.js';
import { createEntity, createIdentity, createService } from '../../support/factories.js';
import { MANAGEMENT } from '../../support/api-paths.js';

const MAX_ITEMS = 10_000;

const names = (count: number, prefix: string) => Array.from({ length: count }, (_, index) => `${prefix}${index}`);

describe('large lists in requests', () => {
  let t: TestApp;
  let token: string;
  before(async () => {
    t = await buildTestApp();
    token = await t.loginAsAdmin();
  });
  after(() => t.close());

  it('refuses more than 10,000 items in an array with 400, before any work', async () => {
    const policy = {
      name: 'too-many-roles',
      type: 'Dial',
      semantic: 'AnyOf',
      identityRoles: names(16_384, '#role-'),
      serviceRoles: ['#all'],
    };
    const result = await t.call({ method: 'POST', url: `${MANAGEMENT}/service-policies`, token, payload: policy });
    assertError(result, 400, 'COULD_NOT_VALIDATE', 'identityRoles');
    assert.match(result.text, /identityRoles in body should have at most 10000 items/);
    const attributes = await t.call({
      method: 'POST',
      url: `${MANAGEMENT}/identities`,
      token,
      payload: {
        name: 'too-many-attributes',
        type: 'User',
        isAdmin: false,
        roleAttributes: names(MAX_ITEMS + 1, 'attribute-'),
      },
    });
    assertError(attributes, 400, 'COULD_NOT_VALIDATE', 'roleAttributes');
  });

  it('evaluates a policy of 10,000 roles against an identity of 10,000 attributes', async () => {
    const attributes = names(MAX_ITEMS, 'attribute-');
    const identityId = await createIdentity(t, token, { roleAttributes: attributes });
    const serviceId = await createService(t, token);
    const policy = {
      name: 'many-roles',
      type: 'Dial',
      semantic: 'AllOf',
      identityRoles: attributes.map((a) => `#${a}`),
      serviceRoles: [`@${serviceId}`],
    };
    const policyId = await createEntity(t, token, 'service-policies', policy);
    const identities = await t.call({
      method: 'GET',
      url: `${MANAGEMENT}/service-policies/${policyId}/identities`,
      token,
    });
    assert.deepEqual(
      (identities.body as { data: { id: string }[] }).data.map((identity) => identity.id),
      [identityId],
    );

    // Changing the identity re-evaluates every policy against all of its attributes.
    const patched = await t.call({
      method: 'PATCH',
      url: `${MANAGEMENT}/identities/${identityId}`,
      token,
      payload: { roleAttributes: attributes.slice(1) },
    });
    assert.equal(patched.status, 200, patched.text);
    const after = await t.call({ method: 'GET', url: `${MANAGEMENT}/service-policies/${policyId}/identities`, token });
    assert.deepEqual((after.body as { data: unknown[] }).data, []);
  });

  it('logs in with thousands of configTypes', async () => {
    const configTypes = names(5_000, 'type-');
    const result = await t.call({
      method: 'POST',
      url: '/edge/client/v1/authenticate?method=password',
      payload: { username: ADMIN_USERNAME, password: ADMIN_PASSWORD, configTypes },
    });
    assert.equal(result.status, 200, result.text);
  });

  it('removes thousands of service-config pairs in one request', async () => {
    const identityId = await createIdentity(t, token);
    const serviceId = await createService(t, token);
    const typeId = await createEntity(t, token, 'config-types', { name: 'many-pairs-type' });
    const configId = await createEntity(t, token, 'configs', {
      name: 'many-pairs-config',
      configTypeId: typeId,
      data: {},
    });
    const url = `${MANAGEMENT}/identities/${identityId}/service-configs`;
    assert.equal((await t.call({ method: 'POST', url, token, payload: [{ serviceId, configId }] })).status, 200);
    const removal = Array.from({ length: 2_000 }, () => ({ serviceId, configId }));
    const removed = await t.call({ method: 'DELETE', url, token, payload: removal });
    assert.equal(removed.status, 200, removed.text);
    assert.deepEqual(((await t.call({ method: 'GET', url, token })).body as { data: unknown[] }).data, []);
  });
});
