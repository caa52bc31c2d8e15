import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../../support/test-app.js';
import { assertError } from '../../support/conformance.js';
import {
  createEdgeRouter,
  createEntity,
  createIdentity,
  createService,
  createUser,
  login,
} from '../../support/factories.js';
import { MANAGEMENT as api } from '../../support/api-paths.js';

interface Advice {
  identityId: string;
  identity: { id: string; name: string; entity: string };
  serviceId: string;
  service: { id: string; name: string; entity: string };
  isDialAllowed?: boolean;
  isBindAllowed?: boolean;
  identityRouterCount?: number;
  serviceRouterCount?: number;
  commonRouters?: { id: string; name: string; entity: string; isOnline: boolean; _links: Record<string, unknown> }[];
}

describe('getIdentityPolicyAdvice', () => {
  let t: TestApp;
  let admin: string;
  const advice = async (identityId: string, serviceId: string) => {
    const result = await t.call({
      method: 'GET',
      url: `${api}/identities/${identityId}/policy-advice/${serviceId}`,
      token: admin,
    });
    assert.equal(result.status, 200, result.text);
    return (result.body as { data: Advice }).data;
  };

  before(async () => {
    t = await buildTestApp();
    admin = await t.loginAsAdmin();
  });
  after(() => t.close());

  it('reports dial and bind, the routers on each side and those they share', async () => {
    const identity = await createIdentity(t, admin, { name: 'advice-identity' });
    const service = await createService(t, admin, { name: 'advice-service' });
    const shared = await createEdgeRouter(t, admin, { name: 'advice-shared' });
    const identityOnly = await createEdgeRouter(t, admin, { name: 'advice-identity-only' });
    const serviceOnly = await createEdgeRouter(t, admin, { name: 'advice-service-only' });
    await createEntity(t, admin, 'service-policies', {
      name: 'advice-dial',
      type: 'Dial',
      semantic: 'AnyOf',
      identityRoles: [`@${identity}`],
      serviceRoles: [`@${service}`],
    });
    await createEntity(t, admin, 'edge-router-policies', {
      name: 'advice-erp',
      semantic: 'AnyOf',
      identityRoles: [`@${identity}`],
      edgeRouterRoles: [`@${shared}`, `@${identityOnly}`],
    });
    // A second policy over the same router must not count it twice.
    await createEntity(t, admin, 'edge-router-policies', {
      name: 'advice-erp-2',
      semantic: 'AnyOf',
      identityRoles: [`@${identity}`],
      edgeRouterRoles: [`@${shared}`],
    });
    await createEntity(t, admin, 'service-edge-router-policies', {
      name: 'advice-serp',
      semantic: 'AnyOf',
      serviceRoles: [`@${service}`],
      edgeRouterRoles: [`@${shared}`, `@${serviceOnly}`],
    });

    const found = await advice(identity, service);
    assert.equal(found.identityId, identity);
    assert.deepEqual([found.identity.name, found.identity.entity], ['advice-identity', 'identities']);
    assert.equal(found.serviceId, service);
    assert.deepEqual([found.service.name, found.service.entity], ['advice-service', 'services']);
    assert.equal(found.isDialAllowed, true);
    assert.equal(found.isBindAllowed, undefined, "false is left out, as upstream's omitempty model does");
    assert.equal(found.identityRouterCount, 2);
    assert.equal(found.serviceRouterCount, 2);
    assert.deepEqual(found.commonRouters, [
      {
        _links: {
          self: { href: `./edge-routers/${shared}` },
          'edge-router-policies': { href: `./edge-routers/${shared}/edge-router-policies` },
        },
        entity: 'edge-routers',
        id: shared,
        name: 'advice-shared',
        isOnline: false,
      },
    ]);

    await createEntity(t, admin, 'service-policies', {
      name: 'advice-bind',
      type: 'Bind',
      semantic: 'AnyOf',
      identityRoles: [`@${identity}`],
      serviceRoles: [`@${service}`],
    });
    assert.equal((await advice(identity, service)).isBindAllowed, true);
  });

  it('leaves out what is false, zero or empty when nothing links the two', async () => {
    const identity = await createIdentity(t, admin);
    const service = await createService(t, admin);
    const found = await advice(identity, service);
    assert.deepEqual(Object.keys(found).sort(), ['identity', 'identityId', 'service', 'serviceId']);
  });

  it('answers 404 for a missing identity or service, and 401 for a non-admin', async () => {
    const identity = await createIdentity(t, admin);
    const service = await createService(t, admin);
    assertError(
      await t.call({ method: 'GET', url: `${api}/identities/missing/policy-advice/${service}`, token: admin }),
      404,
      'NOT_FOUND',
    );
    assertError(
      await t.call({ method: 'GET', url: `${api}/identities/${identity}/policy-advice/missing`, token: admin }),
      404,
      'NOT_FOUND',
    );
    const user = await createUser(t, admin);
    const ordinary = await login(t, user.username, user.password, 'management');
    assertError(
      await t.call({ method: 'GET', url: `${api}/identities/${identity}/policy-advice/${service}`, token: ordinary }),
      401,
      'UNAUTHORIZED',
    );
  });
});
