import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../../support/test-app.js';
import { assertError, type CallResult } from '../../support/conformance.js';
import { createEntity } from '../../support/factories.js';

const BASE = '/edge/management/v1/configs';
const SERVICES = '/edge/management/v1/services';
const INTERCEPT_V1 = 'g7cIWbcGg';
const HOST_V1 = 'NH5p4FpGR';
const HOST_V2 = 'host.v2';
const TUNNELER_CLIENT_V1 = 'f2dd2df0-9c04-4b84-a91e-71437ac229f1';
const TUNNELER_SERVER_V1 = 'cea49285-6c07-42cf-9f52-09a9b115c783';

interface Config {
  id: string;
  name: string;
  configTypeId: string;
  configType: { _links: Record<string, { href: string }>; entity: string; id: string; name: string };
  data: Record<string, unknown>;
  tags: Record<string, unknown>;
  _links: Record<string, { href: string }>;
}

interface ListBody<T> {
  data: T[];
  meta: { pagination: { limit: number; offset: number; totalCount: number }; filterableFields: string[] };
}

const causeOf = (result: CallResult) => (result.body as { error: { cause?: Record<string, unknown> } }).error.cause;
const intercept = { protocols: ['tcp'], addresses: ['echo.ziti'], portRanges: [{ low: 80, high: 80 }] };
const host = { protocol: 'tcp', address: 'localhost', port: 8080 };

describe('configs', () => {
  let t: TestApp;
  let token: string;
  let counter = 0;

  const call = (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
    t.call({ method, url, token, ...(payload !== undefined ? { payload } : {}) });
  const detailOf = async (id: string) => {
    const result = await call('GET', `${BASE}/${id}`);
    assert.equal(result.status, 200, result.text);
    return (result.body as { data: Config }).data;
  };
  const list = async (url: string) => {
    const result = await call('GET', url);
    assert.equal(result.status, 200, result.text);
    return result.body as ListBody<{ id: string; name: string }>;
  };
  const post = (configTypeId: string, data: unknown, name = `cfg-${++counter}`) =>
    call('POST', BASE, { name, configTypeId, data });
  const create = (configTypeId: string, data: unknown, name = `cfg-${++counter}`) =>
    createEntity(t, token, 'configs', { name, configTypeId, data });
  const createType = (body: Record<string, unknown>) => createEntity(t, token, 'config-types', body);
  const createService = (body: Record<string, unknown>) =>
    createEntity(t, token, 'services', { encryptionRequired: true, ...body });

  before(async () => {
    t = await buildTestApp();
    token = await t.loginAsAdmin();
  });
  after(() => t.close());

  describe('the built-in config types validate real tunneler configs', () => {
    it('accepts intercept.v1 configs, wildcard and CIDR addresses included', async () => {
      await create(INTERCEPT_V1, intercept);
      await create(INTERCEPT_V1, {
        protocols: ['tcp', 'udp'],
        addresses: ['*.ziti', '10.0.0.0/24', 'fd00::1'],
        portRanges: [{ low: 1, high: 1024 }],
        dialOptions: { identity: '$dst_ip', connectTimeoutSeconds: 10 },
        sourceIp: '$src_ip:$src_port',
      });
    });

    it('refuses broken intercept.v1 configs', async () => {
      const missing = await post(INTERCEPT_V1, { protocols: ['tcp'], addresses: ['echo.ziti'] });
      assertError(missing, 400, 'COULD_NOT_VALIDATE', '(root)');
      assert.match(String(causeOf(missing)?.reason), /^\(root\) is invalid: portRanges is required/);
      assertError(
        await post(INTERCEPT_V1, { ...intercept, protocols: ['icmp'] }),
        400,
        'COULD_NOT_VALIDATE',
        'protocols.0',
      );
      assertError(
        await post(INTERCEPT_V1, { ...intercept, portRanges: [{ low: 80, high: 70000 }] }),
        400,
        'COULD_NOT_VALIDATE',
        'portRanges.0.high',
      );
      assertError(await post(INTERCEPT_V1, { ...intercept, addresses: [] }), 400, 'COULD_NOT_VALIDATE', 'addresses');
      assertError(
        await post(INTERCEPT_V1, { ...intercept, addresses: [''] }),
        400,
        'COULD_NOT_VALIDATE',
        'addresses.0',
      );
      assertError(await post(INTERCEPT_V1, { ...intercept, extra: true }), 400, 'COULD_NOT_VALIDATE', '(root)');
    });

    it('accepts host.v1 and host.v2 configs, forwarding variants included', async () => {
      await create(HOST_V1, host);
      await create(HOST_V1, {
        forwardProtocol: true,
        allowedProtocols: ['tcp', 'udp'],
        forwardAddress: true,
        allowedAddresses: ['10.0.0.0/8'],
        port: 443,
        listenOptions: { bindUsingEdgeIdentity: true, connectTimeout: '5s', cost: 10, precedence: 'required' },
        portChecks: [
          {
            address: 'localhost:8080',
            interval: '5s',
            timeout: '1s',
            actions: [{ trigger: 'fail', action: 'mark unhealthy' }],
          },
        ],
      });
      await create(HOST_V2, { terminators: [host, { ...host, port: 8081 }] });
    });

    it('refuses broken host.v1 and host.v2 configs', async () => {
      const tooHigh = await post(HOST_V1, { ...host, port: 70000 });
      assertError(tooHigh, 400, 'COULD_NOT_VALIDATE', 'port');
      assert.equal(causeOf(tooHigh)?.value, '70000');
      assertError(await post(HOST_V1, { ...host, protocol: 'icmp' }), 400, 'COULD_NOT_VALIDATE', 'protocol');
      assertError(await post(HOST_V1, { protocol: 'tcp', port: 80 }), 400, 'COULD_NOT_VALIDATE', '(root)');
      assertError(await post(HOST_V1, { ...host, forwardPort: true }), 400, 'COULD_NOT_VALIDATE', '(root)');
      assertError(
        await post(HOST_V1, { ...host, listenOptions: { precedence: 'sometimes' } }),
        400,
        'COULD_NOT_VALIDATE',
        'listenOptions.precedence',
      );
      assertError(await post(HOST_V2, { terminators: [] }), 400, 'COULD_NOT_VALIDATE', 'terminators');
      assertError(
        await post(HOST_V2, { terminators: [{ ...host, port: -1 }] }),
        400,
        'COULD_NOT_VALIDATE',
        'terminators.0.port',
      );
    });

    it('validates the legacy tunneler client and server types', async () => {
      await create(TUNNELER_CLIENT_V1, { hostname: 'echo.ziti', port: 80 });
      await create(TUNNELER_SERVER_V1, { hostname: 'localhost', port: 8080, protocol: 'tcp' });
      assertError(await post(TUNNELER_CLIENT_V1, { hostname: 'echo.ziti' }), 400, 'COULD_NOT_VALIDATE', '(root)');
      assertError(
        await post(TUNNELER_SERVER_V1, { hostname: 'localhost', port: 8080, protocol: null }),
        400,
        'COULD_NOT_VALIDATE',
        'protocol',
      );
    });
  });

  describe('createConfig', () => {
    it('answers the config with its type as a reference, numbers as sent', async () => {
      const data = { port: 8080, ratio: 1.5, nested: { list: [1, 2.25, 'x'], flag: true } };
      const typeId = await createType({ name: 'ct-free-form' });
      const id = await create(typeId, data, 'cfg-detail');
      const config = await detailOf(id);
      assert.equal(config.name, 'cfg-detail');
      assert.equal(config.configTypeId, typeId);
      assert.deepEqual(config.configType, {
        _links: { self: { href: `./config-types/${typeId}` } },
        entity: 'config-types',
        id: typeId,
        name: 'ct-free-form',
      });
      assert.deepEqual(config.data, data);
      assert.deepEqual(config._links, { self: { href: `./configs/${id}` } });
    });

    it('refuses an unknown config type on field type', async () => {
      const result = await post('no-such-type', {});
      assertError(result, 400, 'COULD_NOT_VALIDATE', 'type');
      assert.equal(causeOf(result)?.reason, 'invalid config type');
      assertError(
        await call('POST', BASE, { name: 'cfg-no-type', data: {} }),
        400,
        'COULD_NOT_VALIDATE',
        'configTypeId',
      );
    });

    it("refuses data that is not an object (a JSON string included) as upstream's mapper does, and a missing data", async () => {
      const id = await create(HOST_V1, host, 'cfg-keeps-data');
      for (const [data, value] of [
        [[intercept], '[map[addresses:[echo.ziti] portRanges:[map[high:80 low:80]] protocols:[tcp]]]'],
        [JSON.stringify(host), JSON.stringify(host)],
        ['', ''],
        [5, '5'],
      ] as const) {
        for (const [method, url] of [
          ['POST', BASE],
          ['PUT', `${BASE}/${id}`],
          ['PATCH', `${BASE}/${id}`],
        ] as const) {
          const result = await call(method, url, { name: 'cfg-bad-data', configTypeId: HOST_V1, data });
          assertError(result, 400, 'COULD_NOT_VALIDATE', 'data');
          assert.deepEqual(
            [causeOf(result)?.reason, causeOf(result)?.value],
            ['invalid type, expected object', value],
            `${method} ${JSON.stringify(data)}`,
          );
        }
      }
      assertError(
        await call('POST', BASE, { name: 'cfg-no-data', configTypeId: INTERCEPT_V1 }),
        400,
        'COULD_NOT_VALIDATE',
        'data',
      );
      assertError(
        await call('POST', BASE, { name: 'cfg-null-data', configTypeId: INTERCEPT_V1, data: null }),
        400,
        'COULD_NOT_VALIDATE',
        'data',
      );
    });

    it('refuses duplicate names', async () => {
      await create(HOST_V1, host, 'cfg-dup');
      const duplicate = await post(HOST_V1, host, 'cfg-dup');
      assertError(duplicate, 400, 'COULD_NOT_VALIDATE', 'name');
      assert.equal(causeOf(duplicate)?.reason, 'name is must be unique');
    });
  });

  describe('updateConfig and patchConfig', () => {
    it('PUT replaces name, data and tags, validates the data, and ignores a different config type', async () => {
      const id = await create(HOST_V1, host, 'cfg-put');
      const typeId = await createType({ name: 'ct-put-target' });
      const put = await call('PUT', `${BASE}/${id}`, {
        name: 'cfg-put-2',
        configTypeId: typeId,
        data: { ...host, port: 9090 },
      });
      assert.equal(put.status, 200, put.text);
      const config = await detailOf(id);
      assert.deepEqual(
        [config.name, config.configTypeId, config.data, config.tags],
        ['cfg-put-2', HOST_V1, { ...host, port: 9090 }, {}],
      );
      assertError(
        await call('PUT', `${BASE}/${id}`, { name: 'cfg-put-2', data: { ...host, port: 70000 } }),
        400,
        'COULD_NOT_VALIDATE',
        'port',
      );
      assertError(await call('PUT', `${BASE}/${id}`, { name: 'cfg-put-2' }), 400, 'COULD_NOT_VALIDATE', 'data');
    });

    it('PATCH changes only what it sends and validates new data', async () => {
      const id = await create(HOST_V1, host, 'cfg-patch');
      assert.equal((await call('PATCH', `${BASE}/${id}`, { tags: { a: '1' } })).status, 200);
      assert.equal(
        (await call('PATCH', `${BASE}/${id}`, { name: 'cfg-patched', configTypeId: INTERCEPT_V1 })).status,
        200,
      );
      let config = await detailOf(id);
      assert.deepEqual(
        [config.name, config.configTypeId, config.data, config.tags],
        ['cfg-patched', HOST_V1, host, { a: '1' }],
      );
      assertError(
        await call('PATCH', `${BASE}/${id}`, { data: { protocol: 'tcp' } }),
        400,
        'COULD_NOT_VALIDATE',
        '(root)',
      );
      assert.equal((await call('PATCH', `${BASE}/${id}`, { data: { ...host, address: 'example.com' } })).status, 200);
      config = await detailOf(id);
      assert.equal(config.data.address, 'example.com');
    });

    it('answers 404 for an unknown id', async () => {
      assertError(await call('PUT', `${BASE}/nope`, { name: 'x', data: {} }), 404, 'NOT_FOUND');
      assertError(await call('PATCH', `${BASE}/nope`, { name: 'x' }), 404, 'NOT_FOUND');
      assertError(await call('GET', `${BASE}/nope`), 404, 'NOT_FOUND');
      assertError(await call('DELETE', `${BASE}/nope`), 404, 'NOT_FOUND');
    });
  });

  describe('listConfigs', () => {
    it('filters by name and by type', async () => {
      const typeId = await createType({ name: 'ct-filter' });
      const first = await create(typeId, {}, 'cfg-filter-a');
      const second = await create(typeId, {}, 'cfg-filter-b');
      assert.deepEqual(
        (await list(`${BASE}?filter=${encodeURIComponent(`type = "${typeId}" sort by name`)}`)).data.map((c) => c.id),
        [first, second],
      );
      assert.deepEqual(
        (await list(`${BASE}?filter=${encodeURIComponent('name = "cfg-filter-b"')}`)).data.map((c) => c.id),
        [second],
      );
      const body = await list(BASE);
      assert.deepEqual(body.meta.filterableFields, [
        'id',
        'createdAt',
        'updatedAt',
        'tags',
        'isSystem',
        'name',
        'type',
      ]);
      assertError(await call('GET', `${BASE}?filter=${encodeURIComponent('data.port = 1')}`), 400, 'INVALID_FILTER');
    });
  });

  describe('deleteConfig and listConfigServices', () => {
    it('lists the services a config is attached to; 404 for an unknown config', async () => {
      const configId = await create(INTERCEPT_V1, intercept);
      const serviceA = await createService({ name: 'svc-cfg-a', configs: [configId] });
      await createService({ name: 'svc-cfg-none' });
      const serviceB = await createService({ name: 'svc-cfg-b', configs: [configId] });
      const body = await list(`${BASE}/${configId}/services`);
      assert.deepEqual(body.data.map((s) => s.id).sort(), [serviceA, serviceB].sort());
      assert.deepEqual(
        (await list(`${BASE}/${configId}/services?filter=${encodeURIComponent('name = "svc-cfg-b"')}`)).data.map(
          (s) => s.id,
        ),
        [serviceB],
      );
      assertError(await call('GET', `${BASE}/nope/services`), 404, 'NOT_FOUND');
    });

    it('refuses with 409 to delete a config services still use, naming them', async () => {
      const configId = await create(HOST_V1, host);
      const serviceId = await createService({ name: 'svc-uses-config', configs: [configId] });
      const refused = await call('DELETE', `${BASE}/${configId}`);
      assertError(refused, 409, 'CAN_NOT_DELETE_REFERENCED_ENTITY', 'configs');
      assert.equal(causeOf(refused)?.value, `[${serviceId}]`);
      assert.equal((await call('PATCH', `${SERVICES}/${serviceId}`, { configs: [] })).status, 200);
      assert.equal((await call('DELETE', `${BASE}/${configId}`)).status, 200);
      assertError(await call('GET', `${BASE}/${configId}`), 404, 'NOT_FOUND');
    });
  });
});
