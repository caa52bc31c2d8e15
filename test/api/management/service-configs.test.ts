import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../../support/test-app.js';
import { assertError } from '../../support/conformance.js';
import { createEntity, createIdentity, createService, createUser, login } from '../../support/factories.js';
import { selectRows } from '../../../src/store/queries/table-rows.js';
import { MANAGEMENT as api } from '../../support/api-paths.js';

interface Override {
  serviceId: string;
  configId: string;
  service: { id: string; name: string; entity: string; _links: Record<string, unknown> };
  config: { id: string; name: string; entity: string; _links: Record<string, unknown> };
}

describe('identity service-config overrides', () => {
  let t: TestApp;
  let admin: string;
  let typeA: string;
  let typeB: string;
  let configA1: string;
  let configA2: string;
  let configB: string;
  let service1: string;
  let service2: string;

  const url = (identityId: string) => `${api}/identities/${identityId}/service-configs`;
  const assign = (identityId: string, payload: unknown) =>
    t.call({ method: 'POST', url: url(identityId), token: admin, payload });
  const unassign = (identityId: string, payload?: unknown) =>
    t.call({ method: 'DELETE', url: url(identityId), token: admin, ...(payload !== undefined ? { payload } : {}) });
  const overrides = async (identityId: string) => {
    const result = await t.call({ method: 'GET', url: url(identityId), token: admin });
    assert.equal(result.status, 200, result.text);
    return result.body as { data: Override[]; meta: Record<string, unknown> };
  };
  const pairs = async (identityId: string) => (await overrides(identityId)).data.map((o) => [o.serviceId, o.configId]);

  before(async () => {
    t = await buildTestApp();
    admin = await t.loginAsAdmin();
    typeA = await createEntity(t, admin, 'config-types', { name: 'override-type-a' });
    typeB = await createEntity(t, admin, 'config-types', { name: 'override-type-b' });
    configA1 = await createEntity(t, admin, 'configs', { name: 'override-a1', configTypeId: typeA, data: { v: 1 } });
    configA2 = await createEntity(t, admin, 'configs', { name: 'override-a2', configTypeId: typeA, data: { v: 2 } });
    configB = await createEntity(t, admin, 'configs', { name: 'override-b', configTypeId: typeB, data: { v: 3 } });
    service1 = await createService(t, admin, { name: 'override-svc-1' });
    service2 = await createService(t, admin, { name: 'override-svc-2' });
  });
  after(() => t.close());

  describe('listIdentitysServiceConfigs', () => {
    it('answers every override at once, with pagination describing exactly that', async () => {
      const identity = await createIdentity(t, admin);
      const empty = await overrides(identity);
      assert.deepEqual(empty.data, []);
      assert.deepEqual(empty.meta.pagination, { limit: 0, offset: 0, totalCount: 0 });
      assert.equal('filterableFields' in empty.meta, false, 'upstream has none here (asked of v1.1.8)');
      assert.equal(
        (
          await assign(identity, [
            { serviceId: service2, configId: configB },
            { serviceId: service1, configId: configA1 },
          ])
        ).status,
        200,
      );
      const listed = await overrides(identity);
      assert.deepEqual(listed.meta.pagination, { limit: 2, offset: 0, totalCount: 2 });
      const byService = new Map(listed.data.map((o) => [o.serviceId, o]));
      assert.equal(byService.get(service1)?.configId, configA1);
      assert.deepEqual(byService.get(service1)?.config, {
        _links: { self: { href: `./configs/${configA1}` } },
        entity: 'configs',
        id: configA1,
        name: 'override-a1',
      });
      assert.equal(byService.get(service1)?.service.name, 'override-svc-1');
      assert.equal(byService.get(service1)?.service.entity, 'services');
      assert.deepEqual(
        listed.data.map((o) => o.serviceId),
        [service1, service2].sort(),
        'ordered by service id',
      );
    });

    it('answers 404 for an unknown identity and 401 for a non-admin', async () => {
      assertError(await t.call({ method: 'GET', url: url('missing'), token: admin }), 404, 'NOT_FOUND');
      const user = await createUser(t, admin);
      const ordinary = await login(t, user.username, user.password, 'management');
      assertError(await t.call({ method: 'GET', url: url(user.id), token: ordinary }), 401, 'UNAUTHORIZED');
    });
  });

  describe('associateIdentitysServiceConfigs', () => {
    it('keeps one override per config type for a service: a later one of the same type replaces it', async () => {
      const identity = await createIdentity(t, admin);
      await assign(identity, [
        { serviceId: service1, configId: configA1 },
        { serviceId: service1, configId: configB },
      ]);
      await assign(identity, [{ serviceId: service1, configId: configA2 }]);
      assert.deepEqual(
        (await pairs(identity)).sort(),
        [
          [service1, configA2],
          [service1, configB],
        ].sort(),
      );
    });

    it('allows one type for several services in one request', async () => {
      const identity = await createIdentity(t, admin);
      const result = await assign(identity, [
        { serviceId: service1, configId: configA1 },
        { serviceId: service2, configId: configA2 },
      ]);
      assert.equal(result.status, 200, result.text);
      assert.equal((await pairs(identity)).length, 2);
    });

    it('refuses two configs of one type for one service in one request, writing nothing', async () => {
      const identity = await createIdentity(t, admin);
      const result = await assign(identity, [
        { serviceId: service1, configId: configA1 },
        { serviceId: service1, configId: configA2 },
      ]);
      assertError(result, 400, 'COULD_NOT_VALIDATE', 'serviceConfigs');
      assert.match(
        (result.body as { error: { cause: { reason: string } } }).error.cause.reason,
        /multiple service configs provided/,
      );
      assert.deepEqual(await pairs(identity), []);
    });

    it('answers 404 for an unknown identity, service or config', async () => {
      const identity = await createIdentity(t, admin);
      assertError(await assign('missing', [{ serviceId: service1, configId: configA1 }]), 404, 'NOT_FOUND');
      assertError(await assign(identity, [{ serviceId: 'missing', configId: configA1 }]), 404, 'NOT_FOUND');
      assertError(await assign(identity, [{ serviceId: service1, configId: 'missing' }]), 404, 'NOT_FOUND');
      assert.deepEqual(await pairs(identity), []);
    });

    it('refuses a body that is not a list of service and config ids', async () => {
      const identity = await createIdentity(t, admin);
      assertError(await assign(identity, [{ serviceId: service1 }]), 400, 'COULD_NOT_VALIDATE');
      // An object where the list belongs cannot be decoded at all, as go-swagger reports it.
      assertError(await assign(identity, { serviceId: service1, configId: configA1 }), 400, 'COULD_NOT_PARSE_BODY');
    });
  });

  describe('disassociateIdentitysServiceConfigs', () => {
    it('removes exactly the given pairs', async () => {
      const identity = await createIdentity(t, admin);
      await assign(identity, [
        { serviceId: service1, configId: configA1 },
        { serviceId: service1, configId: configB },
        { serviceId: service2, configId: configA2 },
      ]);
      assert.equal((await unassign(identity, [{ serviceId: service1, configId: configA1 }])).status, 200);
      // A config of the same type that is not the one set removes nothing.
      assert.equal((await unassign(identity, [{ serviceId: service2, configId: configA1 }])).status, 200);
      assert.deepEqual(
        (await pairs(identity)).sort(),
        [
          [service1, configB],
          [service2, configA2],
        ].sort(),
      );
    });

    it('removes every override when the body is empty or absent', async () => {
      const identity = await createIdentity(t, admin);
      await assign(identity, [{ serviceId: service1, configId: configA1 }]);
      assert.equal((await unassign(identity, [])).status, 200);
      assert.deepEqual(await pairs(identity), []);
      await assign(identity, [{ serviceId: service2, configId: configB }]);
      assert.equal((await unassign(identity)).status, 200);
      assert.deepEqual(await pairs(identity), []);
    });

    it('answers 404 for an unknown identity, service or config', async () => {
      const identity = await createIdentity(t, admin);
      assertError(await unassign('missing'), 404, 'NOT_FOUND');
      assertError(await unassign(identity, [{ serviceId: service1, configId: 'missing' }]), 404, 'NOT_FOUND');
      assertError(await unassign(identity, [{ serviceId: 'missing', configId: configA1 }]), 404, 'NOT_FOUND');
    });
  });

  describe('what overrides hold on to', () => {
    it('refuses to delete a config an override uses, with 409 naming the identity and service', async () => {
      const identity = await createIdentity(t, admin);
      const config = await createEntity(t, admin, 'configs', {
        name: 'override-in-use',
        configTypeId: typeA,
        data: {},
      });
      await assign(identity, [{ serviceId: service1, configId: config }]);
      const refused = await t.call({ method: 'DELETE', url: `${api}/configs/${config}`, token: admin });
      assertError(refused, 409, 'CAN_NOT_DELETE_REFERENCED_ENTITY');
      assert.match(refused.text, new RegExp(`config is in use by identity ${identity} for service ${service1}`));
      await unassign(identity, [{ serviceId: service1, configId: config }]);
      assert.equal((await t.call({ method: 'DELETE', url: `${api}/configs/${config}`, token: admin })).status, 200);
    });

    it('goes with its service and with its identity', async () => {
      const identity = await createIdentity(t, admin);
      const doomed = await createService(t, admin, { name: 'override-doomed' });
      await assign(identity, [
        { serviceId: doomed, configId: configA1 },
        { serviceId: service2, configId: configB },
      ]);
      assert.equal((await t.call({ method: 'DELETE', url: `${api}/services/${doomed}`, token: admin })).status, 200);
      assert.deepEqual(await pairs(identity), [[service2, configB]]);
      assert.equal(
        (await t.call({ method: 'DELETE', url: `${api}/identities/${identity}`, token: admin })).status,
        200,
      );
      const left = await t.deps.store.read((db) =>
        selectRows(db, 'identity_service_configs', { identity_id: identity }),
      );
      assert.deepEqual(left, []);
    });
  });
});
