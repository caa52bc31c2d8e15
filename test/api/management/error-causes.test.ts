// Error causes worded as upstream v1.1.8 words them (asked of a running upstream): a 404's cause names routers of
// either kind "router" and a deleted policy by its plural store name; a policy's role errors list roles in its order.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, type CallResult } from '../../support/conformance.js';
import { createTransitRouter } from '../../support/factories.js';
import { buildTestApp, type TestApp } from '../../support/test-app.js';
import { MANAGEMENT as API } from '../../support/api-paths.js';

describe('error causes', () => {
  let t: TestApp;
  let token: string;
  before(async () => {
    t = await buildTestApp();
    token = await t.loginAsAdmin();
  });
  after(() => t.close());

  const causeOf = (result: CallResult) =>
    (result.body as { error: { cause?: { message?: string } } }).error.cause?.message;
  const fieldCauseOf = (result: CallResult) =>
    (result.body as { error: { cause: { reason: string; value: string } } }).error.cause;
  const call = (method: 'GET' | 'PUT' | 'PATCH' | 'DELETE', path: string) =>
    t.call({
      method,
      url: `${API}/${path}`,
      token,
      ...(method === 'PUT' || method === 'PATCH' ? { payload: { name: 'x' } } : {}),
    });

  it('calls edge routers and transit routers "router"', async () => {
    for (const collection of ['edge-routers', 'transit-routers', 'routers']) {
      for (const method of ['GET', 'PUT', 'PATCH', 'DELETE'] as const) {
        const result = await call(method, `${collection}/no-such-id`);
        assertError(result, 404, 'NOT_FOUND');
        assert.equal(causeOf(result), 'router with id no-such-id not found', `${method} ${collection}`);
      }
    }
    const transitId = await createTransitRouter(t, token);
    assert.equal(causeOf(await call('GET', `edge-routers/${transitId}`)), `router with id ${transitId} not found`);
  });

  it('names a policy by its store when deleting it, and by its type otherwise', async () => {
    const policies = {
      'service-policies': 'servicePolic',
      'edge-router-policies': 'edgeRouterPolic',
      'service-edge-router-policies': 'serviceEdgeRouterPolic',
    };
    for (const [collection, stem] of Object.entries(policies)) {
      assert.equal(
        causeOf(await call('DELETE', `${collection}/no-such-id`)),
        `${stem}ies with id no-such-id not found`,
      );
      for (const method of ['GET', 'PATCH'] as const) {
        assert.equal(
          causeOf(await call(method, `${collection}/no-such-id`)),
          `${stem}y with id no-such-id not found`,
          `${method} ${collection}`,
        );
      }
    }
    assert.equal(causeOf(await call('DELETE', 'services/no-such-id')), 'service with id no-such-id not found');
  });

  it('sorts the roles of a mixed #all and the ids that name nothing, keeps unprefixed roles in the order sent', async () => {
    const create = (identityRoles: string[]) =>
      t.call({
        method: 'POST',
        url: `${API}/service-policies`,
        token,
        payload: { name: 'roles', type: 'Dial', semantic: 'AllOf', identityRoles },
      });
    const mixed = await create(['#zeta', '#all', '#alpha']);
    assertError(mixed, 400, 'COULD_NOT_VALIDATE', 'identityRoles');
    assert.deepEqual(fieldCauseOf(mixed), {
      field: 'identityRoles',
      reason: 'if using #all, it should be the only role specified',
      value: '[#all #alpha #zeta]',
    });
    const missing = await create(['@zz', '@aa']);
    assert.deepEqual(fieldCauseOf(missing), {
      field: 'identityRoles',
      reason: 'no identities found with the given ids',
      value: '[aa zz]',
    });
    const unprefixed = await create(['zz', 'aa']);
    assert.equal(fieldCauseOf(unprefixed).value, '[zz aa]');
  });
});
