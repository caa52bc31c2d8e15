import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../../support/test-app.js';
import { assertError, type CallResult } from '../../support/conformance.js';
import { createEntity, createIdentity, createUser, login } from '../../support/factories.js';

const BASE = '/edge/management/v1/services';
const CLIENT_BASE = '/edge/client/v1/services';
const CONFIGS = '/edge/management/v1/configs';
const INTERCEPT_V1 = 'g7cIWbcGg';
const HOST_V1 = 'NH5p4FpGR';

interface Service {
  id: string;
  name: string;
  terminatorStrategy: string;
  roleAttributes: string[] | null;
  configs: string[];
  config: Record<string, unknown>;
  encryptionRequired: boolean;
  maxIdleTimeMillis: number;
  permissions: string[];
  postureQueries: unknown[];
  tags: Record<string, unknown>;
  _links: Record<string, { href: string }>;
}

interface ListBody<T> {
  data: T[];
  meta: { pagination: { limit: number | string; offset: number; totalCount: number }; filterableFields: string[] };
}

const causeOf = (result: CallResult) => (result.body as { error: { cause?: Record<string, unknown> } }).error.cause;
const intercept = (address: string) => ({
  protocols: ['tcp'],
  addresses: [address],
  portRanges: [{ low: 80, high: 80 }],
});
const host = { protocol: 'tcp', address: 'localhost', port: 8080 };

describe('services', () => {
  let t: TestApp;
  let token: string;
  let counter = 0;

  const call = (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, payload?: unknown, as = token) =>
    t.call({ method, url, token: as, ...(payload !== undefined ? { payload } : {}) });
  const detailOf = async (id: string) => {
    const result = await call('GET', `${BASE}/${id}`);
    assert.equal(result.status, 200, result.text);
    return (result.body as { data: Service }).data;
  };
  const list = async (url: string) => {
    const result = await call('GET', url);
    assert.equal(result.status, 200, result.text);
    return result.body as ListBody<{ id: string; name: string }>;
  };
  const namesOf = async (query: string) => (await list(`${BASE}?${query}`)).data.map((s) => s.name);
  const create = (body: Record<string, unknown>) =>
    createEntity(t, token, 'services', { name: `svc-${++counter}`, encryptionRequired: true, ...body });
  const createConfig = (configTypeId: string, data: unknown) =>
    createEntity(t, token, 'configs', { name: `cfg-${++counter}`, configTypeId, data });

  before(async () => {
    t = await buildTestApp();
    token = await t.loginAsAdmin();
  });
  after(() => t.close());

  describe('createService and detailService', () => {
    it('creates a service with upstream defaults and answers the full detail', async () => {
      const id = await create({ name: 'svc-defaults', encryptionRequired: false });
      const service = await detailOf(id);
      assert.equal(service.name, 'svc-defaults');
      assert.equal(service.terminatorStrategy, 'smartrouting');
      assert.equal(service.maxIdleTimeMillis, 0);
      assert.equal(service.encryptionRequired, false);
      assert.equal(service.roleAttributes, null);
      assert.deepEqual(service.configs, []);
      assert.deepEqual(service.config, {});
      assert.deepEqual(service.tags, {});
      // No service policies exist, so an admin sees the service without dial or bind, as upstream labels it.
      assert.deepEqual(service.permissions, ['Invalid']);
      assert.deepEqual(service.postureQueries, [
        {
          isPassing: true,
          policyId: 'dummy invalid policy: no posture checks defined',
          policyType: 'Invalid',
          postureQueries: [],
        },
      ]);
      const base = `./services/${id}`;
      assert.deepEqual(service._links, {
        self: { href: base },
        'service-edge-router-policies': { href: `${base}/service-edge-router-policies` },
        'service-policies': { href: `${base}/service-policies` },
        terminators: { href: `${base}/terminators` },
        configs: { href: `${base}/configs` },
      });
    });

    it('stores every field it is given', async () => {
      const interceptId = await createConfig(INTERCEPT_V1, intercept('full.ziti'));
      const hostId = await createConfig(HOST_V1, host);
      const id = await create({
        name: 'svc-full',
        terminatorStrategy: 'weighted',
        roleAttributes: ['web', 'eu', 'web'],
        configs: [interceptId, hostId],
        maxIdleTimeMillis: 60000,
        tags: { team: 'blue' },
      });
      const service = await detailOf(id);
      assert.equal(service.terminatorStrategy, 'weighted');
      assert.deepEqual(service.roleAttributes, ['eu', 'web']);
      assert.deepEqual(service.configs, [interceptId, hostId].sort());
      assert.equal(service.maxIdleTimeMillis, 60000);
      assert.equal(service.encryptionRequired, true);
      assert.deepEqual(service.tags, { team: 'blue' });
    });

    it('requires encryptionRequired on create', async () => {
      assertError(
        await call('POST', BASE, { name: 'svc-no-encryption' }),
        400,
        'COULD_NOT_VALIDATE',
        'encryptionRequired',
      );
    });

    it('accepts every registered terminator strategy and answers 404 for an unknown one', async () => {
      for (const strategy of ['smartrouting', 'weighted', 'random', 'sticky']) {
        assert.equal((await detailOf(await create({ terminatorStrategy: strategy }))).terminatorStrategy, strategy);
      }
      const unknown = await call('POST', BASE, { name: 'svc-ha', encryptionRequired: true, terminatorStrategy: 'ha' });
      assertError(unknown, 404, 'NOT_FOUND');
      assert.equal(causeOf(unknown)?.message, 'terminatorStrategy with name ha not found');
    });

    it('refuses two configs of one config type', async () => {
      const first = await createConfig(INTERCEPT_V1, intercept('one.ziti'));
      const second = await createConfig(INTERCEPT_V1, intercept('two.ziti'));
      const result = await call('POST', BASE, {
        name: 'svc-two-intercepts',
        encryptionRequired: true,
        configs: [first, second],
      });
      assertError(result, 400, 'COULD_NOT_VALIDATE', 'configs');
      assert.match(
        String(causeOf(result)?.reason),
        /^duplicate configs named cfg-\d+ and cfg-\d+ found for config type intercept\.v1\. Only one config/,
      );
    });

    it('answers 404 for an unknown config id', async () => {
      const result = await call('POST', BASE, {
        name: 'svc-ghost-config',
        encryptionRequired: true,
        configs: ['ghost'],
      });
      assertError(result, 404, 'NOT_FOUND');
      assert.equal(causeOf(result)?.message, 'configs with id ghost not found');
    });

    it('refuses role attributes prefixed with # or @, and duplicate names', async () => {
      const hash = await call('POST', BASE, {
        name: 'svc-hash',
        encryptionRequired: true,
        roleAttributes: ['ok', '#bad'],
      });
      assertError(hash, 400, 'COULD_NOT_VALIDATE', 'roleAttributes');
      assert.deepEqual(
        [causeOf(hash)?.reason, causeOf(hash)?.value],
        ['role attributes may not be prefixed with #', '#bad'],
      );
      assertError(
        await call('POST', BASE, { name: 'svc-at', encryptionRequired: true, roleAttributes: ['@bad'] }),
        400,
        'COULD_NOT_VALIDATE',
        'roleAttributes',
      );
      await create({ name: 'svc-dup' });
      const duplicate = await call('POST', BASE, { name: 'svc-dup', encryptionRequired: true });
      assertError(duplicate, 400, 'COULD_NOT_VALIDATE', 'name');
      assert.equal(causeOf(duplicate)?.reason, 'name is must be unique');
    });

    it('answers 404 for an unknown id', async () => {
      assertError(await call('GET', `${BASE}/nope`), 404, 'NOT_FOUND');
      assertError(await call('PUT', `${BASE}/nope`, { name: 'x' }), 404, 'NOT_FOUND');
      assertError(await call('PATCH', `${BASE}/nope`, { name: 'x' }), 404, 'NOT_FOUND');
      assertError(await call('DELETE', `${BASE}/nope`), 404, 'NOT_FOUND');
    });
  });

  describe('updateService and patchService', () => {
    it('PUT replaces every field but encryptionRequired, which is fixed at create', async () => {
      const configId = await createConfig(HOST_V1, host);
      const id = await create({
        terminatorStrategy: 'random',
        roleAttributes: ['a'],
        configs: [configId],
        maxIdleTimeMillis: 5,
        tags: { a: '1' },
      });
      const put = await call('PUT', `${BASE}/${id}`, { name: 'svc-put', encryptionRequired: false });
      assert.equal(put.status, 200, put.text);
      const service = await detailOf(id);
      assert.deepEqual(
        [
          service.name,
          service.terminatorStrategy,
          service.roleAttributes,
          service.configs,
          service.maxIdleTimeMillis,
          service.tags,
          service.encryptionRequired,
        ],
        ['svc-put', 'smartrouting', null, [], 0, {}, true],
      );
    });

    it('PATCH changes only what it sends; null and an empty tags object change nothing', async () => {
      const configId = await createConfig(HOST_V1, host);
      const id = await create({
        terminatorStrategy: 'sticky',
        roleAttributes: ['a'],
        configs: [configId],
        maxIdleTimeMillis: 7,
        tags: { a: '1' },
      });
      const patched = await call('PATCH', `${BASE}/${id}`, {
        roleAttributes: ['b'],
        name: null,
        tags: {},
        encryptionRequired: false,
      });
      assert.equal(patched.status, 200, patched.text);
      let service = await detailOf(id);
      assert.deepEqual(
        [
          service.terminatorStrategy,
          service.roleAttributes,
          service.configs,
          service.maxIdleTimeMillis,
          service.tags,
          service.encryptionRequired,
        ],
        ['sticky', ['b'], [configId], 7, { a: '1' }, true],
      );
      assert.equal(
        (await call('PATCH', `${BASE}/${id}`, { configs: [], maxIdleTimeMillis: 9, terminatorStrategy: 'weighted' }))
          .status,
        200,
      );
      service = await detailOf(id);
      assert.deepEqual([service.configs, service.maxIdleTimeMillis, service.terminatorStrategy], [[], 9, 'weighted']);
    });

    it('checks configs, strategies and role attributes on update too', async () => {
      const id = await create({});
      const first = await createConfig(HOST_V1, host);
      const second = await createConfig(HOST_V1, { ...host, port: 9090 });
      assertError(
        await call('PATCH', `${BASE}/${id}`, { configs: [first, second] }),
        400,
        'COULD_NOT_VALIDATE',
        'configs',
      );
      assertError(await call('PUT', `${BASE}/${id}`, { name: 'svc-put-ghost', configs: ['ghost'] }), 404, 'NOT_FOUND');
      assertError(await call('PATCH', `${BASE}/${id}`, { terminatorStrategy: 'nope' }), 404, 'NOT_FOUND');
      assertError(
        await call('PATCH', `${BASE}/${id}`, { roleAttributes: ['#x'] }),
        400,
        'COULD_NOT_VALIDATE',
        'roleAttributes',
      );
    });
  });

  describe('listServices', () => {
    let webConfig: string;
    before(async () => {
      webConfig = await createConfig(INTERCEPT_V1, intercept('web.ziti'));
      await create({ name: 'lst-web', roleAttributes: ['web', 'eu'], configs: [webConfig] });
      await create({ name: 'lst-db', roleAttributes: ['db', 'eu'], terminatorStrategy: 'weighted' });
      await create({ name: 'lst-cache', roleAttributes: ['cache'] });
    });
    const filter = (expression: string) =>
      `filter=${encodeURIComponent(`name contains "lst-" and ${expression} sort by name`)}`;

    it('filters by configs, terminator strategy, role attributes and name', async () => {
      assert.deepEqual(await namesOf(filter(`anyOf(configs) = "${webConfig}"`)), ['lst-web']);
      assert.deepEqual(await namesOf(filter('terminatorStrategy = "smartrouting"')), ['lst-cache', 'lst-web']);
      assert.deepEqual(await namesOf(filter('anyOf(roleAttributes) = "eu"')), ['lst-db', 'lst-web']);
      assert.deepEqual(await namesOf(filter('isEmpty(configs)')), ['lst-cache', 'lst-db']);
      const body = await list(BASE);
      assert.deepEqual(body.meta.filterableFields, [
        'id',
        'createdAt',
        'updatedAt',
        'tags',
        'isSystem',
        'name',
        'terminatorStrategy',
        'roleAttributes',
        'configs',
      ]);
      assertError(
        await call('GET', `${BASE}?filter=${encodeURIComponent('encryptionRequired = true')}`),
        400,
        'INVALID_FILTER',
      );
    });

    it('narrows by roleFilter: attributes all-of by default or any-of, ids added', async () => {
      const db = (await list(`${BASE}?filter=${encodeURIComponent('name = "lst-db"')}`)).data[0]!.id;
      const scoped = (query: string) => namesOf(`${query}&${filter('true')}`);
      assert.deepEqual(await scoped('roleFilter=%23eu&roleFilter=%23web'), ['lst-web']);
      assert.deepEqual(await scoped('roleFilter=%23eu&roleFilter=%23web&roleSemantic=AnyOf'), ['lst-db', 'lst-web']);
      assert.deepEqual(await scoped(`roleFilter=%23cache&roleFilter=%40${db}`), ['lst-cache', 'lst-db']);
      assert.deepEqual(await scoped('roleFilter=%23nobody'), []);
    });

    it('refuses an unprefixed roleFilter value or an unknown roleSemantic with 400', async () => {
      assertError(await call('GET', `${BASE}?roleFilter=web`), 400, 'COULD_NOT_VALIDATE', 'roleFilter');
      assertError(
        await call('GET', `${BASE}?roleFilter=%23web&roleSemantic=SomeOf`),
        400,
        'COULD_NOT_VALIDATE',
        'roleSemantic',
      );
    });

    it('narrows listIdentities by roleFilter the same way', async () => {
      await createIdentity(t, token, { name: 'rf-identity-a', roleAttributes: ['rf-x', 'rf-y'] });
      await createIdentity(t, token, { name: 'rf-identity-b', roleAttributes: ['rf-x'] });
      const names = async (query: string) => {
        const body = await list(
          `/edge/management/v1/identities?${query}&filter=${encodeURIComponent('true sort by name')}`,
        );
        return body.data.map((identity) => identity.name);
      };
      assert.deepEqual(await names('roleFilter=%23rf-x&roleFilter=%23rf-y'), ['rf-identity-a']);
      assert.deepEqual(await names('roleFilter=%23rf-x&roleFilter=%23rf-y&roleSemantic=AnyOf'), [
        'rf-identity-a',
        'rf-identity-b',
      ]);
    });
  });

  describe('listServiceConfig and listServiceRoleAttributes', () => {
    it("lists a service's configs; 404 for an unknown service", async () => {
      const interceptId = await createConfig(INTERCEPT_V1, intercept('sub.ziti'));
      const hostId = await createConfig(HOST_V1, host);
      const id = await create({ configs: [interceptId, hostId] });
      const body = await list(`${BASE}/${id}/configs`);
      assert.deepEqual(body.data.map((c) => c.id).sort(), [interceptId, hostId].sort());
      assert.deepEqual(
        (await list(`${BASE}/${id}/configs?filter=${encodeURIComponent(`type = "${HOST_V1}"`)}`)).data.map((c) => c.id),
        [hostId],
      );
      assertError(await call('GET', `${BASE}/nope/configs`), 404, 'NOT_FOUND');
    });

    it('lists the distinct role attributes in use', async () => {
      await create({ roleAttributes: ['ra-one', 'ra-two'] });
      await create({ roleAttributes: ['ra-two'] });
      const result = await call(
        'GET',
        `/edge/management/v1/service-role-attributes?filter=${encodeURIComponent('id contains "ra-"')}`,
      );
      assert.equal(result.status, 200, result.text);
      assert.deepEqual((result.body as { data: string[] }).data, ['ra-one', 'ra-two']);
    });
  });

  describe('deleteService', () => {
    it('deletes the service with its config attachments, so the config can go too', async () => {
      const configId = await createConfig(HOST_V1, host);
      const id = await create({ configs: [configId] });
      assert.equal((await call('DELETE', `${BASE}/${id}`)).status, 200);
      assertError(await call('GET', `${BASE}/${id}`), 404, 'NOT_FOUND');
      assert.deepEqual((await list(`${CONFIGS}/${configId}/services`)).data, []);
      assert.equal((await call('DELETE', `${CONFIGS}/${configId}`)).status, 200);
    });
  });

  describe("the client API's service writes", () => {
    it('lets an admin update, patch and delete services', async () => {
      const clientToken = await t.loginAsAdmin('client');
      const id = await create({ roleAttributes: ['client'] });
      assert.equal((await call('PUT', `${CLIENT_BASE}/${id}`, { name: 'svc-client-put' }, clientToken)).status, 200);
      assert.equal((await call('PATCH', `${CLIENT_BASE}/${id}`, { maxIdleTimeMillis: 3 }, clientToken)).status, 200);
      const service = await detailOf(id);
      assert.deepEqual([service.name, service.roleAttributes, service.maxIdleTimeMillis], ['svc-client-put', null, 3]);
      assert.equal((await call('DELETE', `${CLIENT_BASE}/${id}`, undefined, clientToken)).status, 200);
      assertError(await call('DELETE', `${CLIENT_BASE}/${id}`, undefined, clientToken), 404, 'NOT_FOUND');
    });

    it('refuses anyone else with 401', async () => {
      const user = await createUser(t, token);
      const userToken = await login(t, user.username, user.password);
      const id = await create({});
      assertError(await call('PATCH', `${CLIENT_BASE}/${id}`, { name: 'svc-hijack' }, userToken), 401, 'UNAUTHORIZED');
      assertError(await call('DELETE', `${CLIENT_BASE}/${id}`, undefined, userToken), 401, 'UNAUTHORIZED');
    });
  });

  it('counts services in the summary', async () => {
    const counts = ((await call('GET', '/edge/management/v1/summary')).body as { data: Record<string, number> }).data;
    const total = (await list(BASE)).meta.pagination.totalCount;
    assert.deepEqual([counts.services, counts['services.edge']], [total, total]);
  });
});
