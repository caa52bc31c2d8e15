import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../../support/test-app.js';
import { assertError, type CallResult } from '../../support/conformance.js';
import { createEntity } from '../../support/factories.js';

const BASE = '/edge/management/v1/config-types';
const CONFIGS = '/edge/management/v1/configs';

interface ConfigType {
  id: string;
  name: string;
  schema: Record<string, unknown> | null;
  tags: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
  _links: Record<string, { href: string }>;
}

interface ListBody<T> {
  data: T[];
  meta: { pagination: { limit: number; offset: number; totalCount: number }; filterableFields: string[] };
}

const BUILT_IN = [
  {
    id: 'f2dd2df0-9c04-4b84-a91e-71437ac229f1',
    name: 'ziti-tunneler-client.v1',
    $id: 'http://edge.openziti.org/schemas/ziti-tunneler-client.v1.config.json',
  },
  {
    id: 'cea49285-6c07-42cf-9f52-09a9b115c783',
    name: 'ziti-tunneler-server.v1',
    $id: 'http://edge.openziti.org/schemas/ziti-tunneler-server.v1.config.json',
  },
  { id: 'g7cIWbcGg', name: 'intercept.v1', $id: 'http://edge.openziti.org/schemas/intercept.v1.config.json' },
  { id: 'NH5p4FpGR', name: 'host.v1', $id: 'http://ziti-edge.netfoundry.io/schemas/host.v1.schema.json' },
  { id: 'host.v2', name: 'host.v2', $id: 'http://ziti-edge.netfoundry.io/schemas/host.v2.schema.json' },
];

const causeOf = (result: CallResult) => (result.body as { error: { cause?: Record<string, unknown> } }).error.cause;

/** Every object in a JSON document has its keys in Go's sorted order. */
function hasSortedKeys(value: unknown): boolean {
  if (Array.isArray(value)) return value.every(hasSortedKeys);
  if (value === null || typeof value !== 'object') return true;
  const keys = Object.keys(value);
  return keys.every((key, index) => index === 0 || keys[index - 1]! < key) && Object.values(value).every(hasSortedKeys);
}

describe('config types', () => {
  let t: TestApp;
  let token: string;

  const call = (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
    t.call({ method, url, token, ...(payload !== undefined ? { payload } : {}) });
  const detailOf = async (id: string) => {
    const result = await call('GET', `${BASE}/${id}`);
    assert.equal(result.status, 200, result.text);
    return (result.body as { data: ConfigType }).data;
  };
  const list = async (filter?: string) => {
    const result = await call('GET', filter === undefined ? BASE : `${BASE}?filter=${encodeURIComponent(filter)}`);
    assert.equal(result.status, 200, result.text);
    return result.body as ListBody<ConfigType>;
  };
  const create = (body: Record<string, unknown>) => createEntity(t, token, 'config-types', body);
  const createConfig = (body: Record<string, unknown>) => createEntity(t, token, 'configs', body);

  before(async () => {
    t = await buildTestApp();
    token = await t.loginAsAdmin();
  });
  after(() => t.close());

  describe('built-in config types', () => {
    it('exist from the first start with upstream ids, names and schema ids', async () => {
      const body = await list('limit none');
      for (const expected of BUILT_IN) {
        const found = body.data.find((type) => type.id === expected.id);
        assert.ok(found, `${expected.name} exists`);
        assert.equal(found.name, expected.name);
        assert.equal(found.schema?.$id, expected.$id);
        assert.deepEqual(found.tags, {});
      }
      assert.ok(body.meta.filterableFields.includes('name') && body.meta.filterableFields.includes('schema'));
    });

    it('carry the whole upstream documents, descriptions included, with keys in Go order', async () => {
      const intercept = (await detailOf('g7cIWbcGg')).schema!;
      assert.deepEqual(intercept.required, ['protocols', 'addresses', 'portRanges']);
      assert.equal(intercept.additionalProperties, false);
      assert.deepEqual(Object.keys(intercept.definitions as object), [
        'dialAddress',
        'inhabitedSet',
        'listenAddress',
        'portNumber',
        'portRange',
        'protocolName',
        'proxyConfiguration',
        'proxyType',
        'timeoutSeconds',
      ]);
      assert.deepEqual(Object.keys(intercept.properties as object), [
        'addresses',
        'dialOptions',
        'portRanges',
        'protocols',
        'sourceIp',
      ]);
      assert.match(
        String((intercept.definitions as Record<string, { description?: string }>).listenAddress!.description),
        /^idn-hostname allows ipv4/,
      );

      const host = (await detailOf('NH5p4FpGR')).schema!;
      const hostProperties = host.properties as Record<string, Record<string, unknown>>;
      assert.deepEqual(Object.keys(hostProperties.listenOptions!.properties as object), [
        'bindUsingEdgeIdentity',
        'connectTimeout',
        'connectTimeoutSeconds',
        'cost',
        'identity',
        'maxConnections',
        'precedence',
      ]);
      assert.equal(
        (hostProperties.listenOptions!.properties as Record<string, Record<string, unknown>>).connectTimeoutSeconds!
          .deprecated,
        true,
      );
      assert.equal((host.allOf as unknown[]).length, 3);
      assert.ok('httpCheck' in (host.definitions as object) && 'proxyConfiguration' in (host.definitions as object));

      const hostV2 = (await detailOf('host.v2')).schema!;
      assert.deepEqual(hostV2.required, ['terminators']);
      assert.deepEqual((hostV2.definitions as Record<string, unknown>).terminatorList, {
        items: { $ref: '#/definitions/terminator' },
        minItems: 1,
        type: 'array',
      });

      const server = (await detailOf('cea49285-6c07-42cf-9f52-09a9b115c783')).schema!;
      assert.deepEqual((server.properties as Record<string, unknown>).protocol, {
        enum: ['tcp', 'udp'],
        type: ['string', 'null'],
      });
      for (const type of (await list('limit none')).data.filter((type) =>
        BUILT_IN.some((builtIn) => builtIn.id === type.id),
      )) {
        assert.ok(hasSortedKeys(type.schema), `${type.name} keys are sorted`);
      }
    });

    it('filter by name', async () => {
      assert.deepEqual(
        (await list('name = "intercept.v1"')).data.map((type) => type.id),
        ['g7cIWbcGg'],
      );
      assert.deepEqual(
        (await list('name contains "host." sort by name')).data.map((type) => type.id),
        ['NH5p4FpGR', 'host.v2'],
      );
    });
  });

  describe('createConfigType', () => {
    it('creates a type with a schema and answers it in detail, keys sorted', async () => {
      const schema = { type: 'object', required: ['b'], properties: { b: { type: 'string' }, a: { type: 'integer' } } };
      const id = await create({ name: 'ct-basic', schema, tags: { team: 'blue' } });
      const type = await detailOf(id);
      assert.equal(type.name, 'ct-basic');
      assert.deepEqual(type.schema, schema);
      assert.deepEqual(Object.keys(type.schema ?? {}), ['properties', 'required', 'type']);
      assert.deepEqual(type.tags, { team: 'blue' });
      assert.deepEqual(type._links, { self: { href: `./config-types/${id}` } });
    });

    it('answers "schema":null for a type without a schema', async () => {
      assert.equal((await detailOf(await create({ name: 'ct-no-schema' }))).schema, null);
    });

    it('refuses the reserved name all and duplicate names', async () => {
      assertError(await call('POST', BASE, { name: 'all' }), 400, 'COULD_NOT_VALIDATE', 'name');
      await create({ name: 'ct-dup' });
      const duplicate = await call('POST', BASE, { name: 'ct-dup' });
      assertError(duplicate, 400, 'COULD_NOT_VALIDATE', 'name');
      assert.equal(causeOf(duplicate)?.reason, 'name is must be unique');
    });

    it('refuses a schema that does not compile, has no object root, or is not an object', async () => {
      const broken = await call('POST', BASE, {
        name: 'ct-broken',
        schema: { type: 'object', properties: { a: { type: 'nope' } } },
      });
      assertError(broken, 400, 'COULD_NOT_VALIDATE', 'schema');
      assert.match(String(causeOf(broken)?.reason), /^invalid schema /);
      const notObject = await call('POST', BASE, { name: 'ct-string-root', schema: { type: 'string' } });
      assertError(notObject, 400, 'COULD_NOT_VALIDATE', 'schema');
      assert.equal(causeOf(notObject)?.reason, 'invalid config type schema, root type must be object');
    });

    it("refuses a schema that is not an object, a JSON string included, as a validation error (upstream's router check)", async () => {
      const cases: [unknown, string, string][] = [
        [
          '{"type":"object"}',
          'schema in body must be of type object: "{\\"type\\":\\"object\\"}"',
          '{"type":"object"}',
        ],
        ['', 'schema in body must be of type object: ""', ''],
        [['x'], 'schema in body must be of type object', '[x]'],
        [true, 'schema in body must be of type object', 'true'],
      ];
      const id = await create({ name: 'ct-patched-schema', schema: { type: 'object' } });
      for (const [schema, reason, value] of cases) {
        for (const [method, url] of [
          ['POST', BASE],
          ['PUT', `${BASE}/${id}`],
          ['PATCH', `${BASE}/${id}`],
        ] as const) {
          const result = await call(method, url, { name: 'ct-bad-schema', schema });
          assertError(result, 400, 'COULD_NOT_VALIDATE', 'schema');
          assert.deepEqual(
            [causeOf(result)?.reason, causeOf(result)?.value],
            [reason, value],
            `${method} ${JSON.stringify(schema)}`,
          );
        }
      }
      assert.deepEqual((await detailOf(id)).schema, { type: 'object' });
    });

    it('accepts draft-04 schemas and enforces them on config data', async () => {
      const schema = {
        $schema: 'http://json-schema.org/draft-04/schema#',
        type: 'object',
        properties: { port: { type: 'integer', maximum: 10, exclusiveMaximum: true } },
      };
      const typeId = await create({ name: 'ct-draft-04', schema });
      await createConfig({ name: 'cfg-draft-04-ok', configTypeId: typeId, data: { port: 9 } });
      assertError(
        await call('POST', CONFIGS, { name: 'cfg-draft-04-bad', configTypeId: typeId, data: { port: 10 } }),
        400,
        'COULD_NOT_VALIDATE',
        'port',
      );
    });

    it('accepts an empty schema, which constrains nothing and is stored as none, as upstream', async () => {
      const typeId = await create({ name: 'ct-empty-schema', schema: {} });
      assert.equal((await detailOf(typeId)).schema, null);
      await createConfig({ name: 'cfg-empty-schema', configTypeId: typeId, data: { anything: [1, 'two'] } });
    });
  });

  describe('updateConfigType and patchConfigType', () => {
    it('PUT replaces every field: a missing schema and tags become empty', async () => {
      const id = await create({ name: 'ct-put', schema: { type: 'object' }, tags: { a: '1' } });
      assert.equal((await call('PUT', `${BASE}/${id}`, { name: 'ct-put-renamed' })).status, 200);
      const type = await detailOf(id);
      assert.deepEqual([type.name, type.schema, type.tags], ['ct-put-renamed', null, {}]);
    });

    it('PATCH changes only what it sends, and checks a new schema', async () => {
      const id = await create({ name: 'ct-patch', schema: { type: 'object' }, tags: { a: '1' } });
      assert.equal((await call('PATCH', `${BASE}/${id}`, { name: 'ct-patched', tags: {} })).status, 200);
      let type = await detailOf(id);
      assert.deepEqual([type.name, type.schema, type.tags], ['ct-patched', { type: 'object' }, { a: '1' }]);
      assertError(
        await call('PATCH', `${BASE}/${id}`, { schema: { type: 'array' } }),
        400,
        'COULD_NOT_VALIDATE',
        'schema',
      );
      assertError(await call('PATCH', `${BASE}/${id}`, { name: 'all' }), 400, 'COULD_NOT_VALIDATE', 'name');
      assert.equal((await call('PATCH', `${BASE}/${id}`, { schema: { type: 'object', required: ['x'] } })).status, 200);
      type = await detailOf(id);
      assert.deepEqual(type.schema, { required: ['x'], type: 'object' });
    });

    it('applies a changed schema to later config writes', async () => {
      const typeId = await create({ name: 'ct-evolving', schema: { type: 'object' } });
      await createConfig({ name: 'cfg-evolving-1', configTypeId: typeId, data: {} });
      assert.equal(
        (await call('PATCH', `${BASE}/${typeId}`, { schema: { type: 'object', required: ['host'] } })).status,
        200,
      );
      assertError(
        await call('POST', CONFIGS, { name: 'cfg-evolving-2', configTypeId: typeId, data: {} }),
        400,
        'COULD_NOT_VALIDATE',
        '(root)',
      );
    });

    it('answers 404 for an unknown id', async () => {
      assertError(await call('PUT', `${BASE}/nope`, { name: 'x' }), 404, 'NOT_FOUND');
      assertError(await call('PATCH', `${BASE}/nope`, { name: 'x' }), 404, 'NOT_FOUND');
      assertError(await call('GET', `${BASE}/nope`), 404, 'NOT_FOUND');
    });
  });

  describe('deleteConfigType', () => {
    it('deletes an unused type and answers 404 afterwards', async () => {
      const id = await create({ name: 'ct-delete' });
      assert.equal((await call('DELETE', `${BASE}/${id}`)).status, 200);
      assertError(await call('GET', `${BASE}/${id}`), 404, 'NOT_FOUND');
      assertError(await call('DELETE', `${BASE}/${id}`), 404, 'NOT_FOUND');
    });

    it("refuses with 409 while configs of the type exist, in upstream's words", async () => {
      const typeId = await create({ name: 'ct-in-use' });
      const configId = await createConfig({ name: 'cfg-of-ct-in-use', configTypeId: typeId, data: {} });
      const refused = await call('DELETE', `${BASE}/${typeId}`);
      assertError(refused, 409, 'CAN_NOT_DELETE_REFERENCED_ENTITY');
      assert.deepEqual((refused.body as { error: { cause: unknown } }).error.cause, {
        code: 'UNHANDLED',
        message: `cannot delete config type ${typeId}, as configs of that type exist`,
      });
      assert.equal((await call('DELETE', `${CONFIGS}/${configId}`)).status, 200);
      assert.equal((await call('DELETE', `${BASE}/${typeId}`)).status, 200);
    });
  });

  describe('listConfigsForConfigType', () => {
    it('lists the configs of one type, filtered and paged like any list', async () => {
      const typeId = await create({ name: 'ct-with-configs' });
      const other = await create({ name: 'ct-other' });
      const first = await createConfig({ name: 'cfg-list-a', configTypeId: typeId, data: {} });
      const second = await createConfig({ name: 'cfg-list-b', configTypeId: typeId, data: {} });
      await createConfig({ name: 'cfg-list-other', configTypeId: other, data: {} });
      const all = await call('GET', `${BASE}/${typeId}/configs`);
      assert.equal(all.status, 200, all.text);
      assert.deepEqual((all.body as ListBody<{ id: string }>).data.map((c) => c.id).sort(), [first, second].sort());
      const filtered = await call(
        'GET',
        `${BASE}/${typeId}/configs?filter=${encodeURIComponent('name = "cfg-list-b"')}`,
      );
      assert.deepEqual(
        (filtered.body as ListBody<{ id: string }>).data.map((c) => c.id),
        [second],
      );
      assertError(
        await call('GET', `${BASE}/${typeId}/configs?filter=${encodeURIComponent('nope = 1')}`),
        400,
        'INVALID_FILTER',
      );
    });

    it('answers 404 for an unknown config type', async () => {
      assertError(await call('GET', `${BASE}/nope/configs`), 404, 'NOT_FOUND');
    });
  });

  it('counts config types in the summary', async () => {
    const summary = await call('GET', '/edge/management/v1/summary');
    const counts = (summary.body as { data: Record<string, number> }).data;
    assert.equal(counts.configTypes, (await list('limit none')).meta.pagination.totalCount);
  });
});
