import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp, testTime } from '../../support/test-app.js';
import { assertError } from '../../support/conformance.js';
import { createEntity, createIdentity } from '../../support/factories.js';
import { selectRows } from '../../../src/store/queries/table-rows.js';
import { MANAGEMENT as API } from '../../support/api-paths.js';

type EdgeRouter = Record<string, unknown> & { id: string; name: string };

const BASE = `${API}/edge-routers`;

describe('edge routers', () => {
  let t: TestApp;
  let token: string;
  let counter = 0;
  const post = (payload: unknown) => t.call({ method: 'POST', url: BASE, token, payload });
  const createEdgeRouter = (body: Record<string, unknown> = {}) =>
    createEntity(t, token, 'edge-routers', { name: `er-${++counter}`, ...body });
  const get = async (id: string) => {
    const result = await t.call({ method: 'GET', url: `${BASE}/${id}`, token });
    assert.equal(result.status, 200, result.text);
    return (result.body as { data: EdgeRouter }).data;
  };
  const list = async (filter: string) => {
    const result = await t.call({ method: 'GET', url: `${BASE}?limit=-1&filter=${encodeURIComponent(filter)}`, token });
    assert.equal(result.status, 200, result.text);
    return (result.body as { data: EdgeRouter[] }).data;
  };
  const change = (method: 'PUT' | 'PATCH', id: string, payload: unknown) =>
    t.call({ method, url: `${BASE}/${id}`, token, payload });
  /** The router's system edge router policy as stored (there is no REST route for policies yet). */
  const systemPolicy = (id: string) =>
    t.deps.store.read(async (db): Promise<Record<string, unknown> | undefined> => {
      const [row] = await selectRows(db, 'edge_router_policies', { id });
      const identityRoles = await selectRows(db, 'edge_router_policy_identity_roles', { entity_id: id });
      const edgeRouterRoles = await selectRows(db, 'edge_router_policy_edge_router_roles', { entity_id: id });
      return (
        row && {
          ...row,
          identityRoles: identityRoles.map((r) => r.value),
          edgeRouterRoles: edgeRouterRoles.map((r) => r.value),
        }
      );
    });
  const identityStatus = async (id: string) =>
    (await t.call({ method: 'GET', url: `${API}/identities/${id}`, token })).status;

  before(async () => {
    t = await buildTestApp();
    token = await t.loginAsAdmin();
  });
  after(() => t.close());

  describe('createEdgeRouter and detailEdgeRouter', () => {
    it('answers 201 with a shortid and a self link, and shows a never-connected, unenrolled router', async () => {
      const result = await post({ name: 'fresh', tags: { env: 'lab' } });
      assert.equal(result.status, 201);
      const { id, _links } = (result.body as { data: { id: string; _links: unknown } }).data;
      assert.match(id, /^[0-9A-Za-z.-]{9,}$/);
      assert.deepEqual(_links, { self: { href: `./edge-routers/${id}` } });
      const router = await get(id);
      assert.deepEqual(router._links, {
        self: { href: `./edge-routers/${id}` },
        'edge-router-policies': { href: `./edge-routers/${id}/edge-router-policies` },
      });
      const expected = {
        name: 'fresh',
        tags: { env: 'lab' },
        appData: {},
        cost: 0,
        noTraversal: false,
        disabled: false,
        roleAttributes: null,
        isTunnelerEnabled: false,
        isOnline: false,
        hostname: '',
        supportedProtocols: {},
        syncStatus: 'SYNC_UNKNOWN',
        versionInfo: { arch: '', buildDate: '', os: '', revision: '', version: '' },
        isVerified: false,
        certPem: null,
        unverifiedCertPem: null,
        unverifiedFingerprint: null,
        // The erott enrollment every new edge router gets (test/api/client/enroll-router.test.ts checks its JWT).
        enrollmentCreatedAt: testTime(),
        enrollmentExpiresAt: testTime(3 * 3600_000),
        createdAt: testTime(),
        updatedAt: testTime(),
      };
      for (const [key, value] of Object.entries(expected)) assert.deepEqual(router[key], value, key);
      for (const key of ['enrollmentJwt', 'enrollmentToken']) assert.equal(typeof router[key], 'string', key);
      assert.equal('isEdge' in router, false);
      // Omitted rather than null, as upstream's omitempty string (the generated Python client refuses a null).
      assert.equal('fingerprint' in router, false);
      assert.equal('fingerprint' in (await list(`id = "${id}"`))[0]!, false);
    });

    it('stores every create field, with role attributes de-duplicated and sorted', async () => {
      const id = await createEdgeRouter({
        cost: 65535,
        noTraversal: true,
        disabled: true,
        appData: { k: 'v' },
        roleAttributes: ['b', 'a', 'b'],
      });
      const router = await get(id);
      assert.deepEqual(
        [router.cost, router.noTraversal, router.disabled, router.appData, router.roleAttributes],
        [65535, true, true, { k: 'v' }, ['a', 'b']],
      );
      const nullCost = await createEdgeRouter({ cost: null, noTraversal: null, disabled: null });
      assert.deepEqual([(await get(nullCost)).cost, (await get(nullCost)).noTraversal], [0, false]);
    });

    it('refuses a cost out of range, a missing, empty or duplicate name, and role attributes that look like roles', async () => {
      assertError(await post({ name: 'low', cost: -1 }), 400, 'COULD_NOT_VALIDATE', 'cost');
      assertError(await post({ name: 'high', cost: 65536 }), 400, 'COULD_NOT_VALIDATE', 'cost');
      assertError(await post({ cost: 1 }), 400, 'COULD_NOT_VALIDATE', 'name');
      assertError(await post({ name: '' }), 400, 'COULD_NOT_VALIDATE', 'name');
      await createEdgeRouter({ name: 'taken' });
      const duplicate = await post({ name: 'taken' });
      assertError(duplicate, 400, 'COULD_NOT_VALIDATE', 'name');
      assert.equal(
        (duplicate.body as { error: { cause: { reason: string } } }).error.cause.reason,
        'name is must be unique',
      );
      // Edge and transit routers share one name index.
      assert.equal(
        (await t.call({ method: 'POST', url: `${API}/transit-routers`, token, payload: { name: 'transit-taken' } }))
          .status,
        201,
      );
      assertError(await post({ name: 'transit-taken' }), 400, 'COULD_NOT_VALIDATE', 'name');
      const hash = await post({ name: 'hash', roleAttributes: ['ok', '#bad'] });
      assertError(hash, 400, 'COULD_NOT_VALIDATE', 'roleAttributes');
      assert.deepEqual((hash.body as { error: { cause: unknown } }).error.cause, {
        field: 'roleAttributes',
        reason: 'role attributes may not be prefixed with #',
        value: '#bad',
      });
      assertError(await post({ name: 'at', roleAttributes: ['@bad'] }), 400, 'COULD_NOT_VALIDATE', 'roleAttributes');
      assert.equal((await list('name in ["low", "high", "hash", "at"]')).length, 0);
    });

    it('answers 404 for an unknown id and for a transit router id', async () => {
      assertError(await t.call({ method: 'GET', url: `${BASE}/nope`, token }), 404, 'NOT_FOUND');
      const transit = await t.call({
        method: 'POST',
        url: `${API}/transit-routers`,
        token,
        payload: { name: 'only-transit' },
      });
      const transitId = (transit.body as { data: { id: string } }).data.id;
      assertError(await t.call({ method: 'GET', url: `${BASE}/${transitId}`, token }), 404, 'NOT_FOUND');
      assertError(await change('PATCH', transitId, { cost: 1 }), 404, 'NOT_FOUND');
      assertError(await change('PUT', transitId, { name: 'x' }), 404, 'NOT_FOUND');
      assertError(await t.call({ method: 'DELETE', url: `${BASE}/${transitId}`, token }), 404, 'NOT_FOUND');
      assert.equal((await t.call({ method: 'GET', url: `${API}/transit-routers/${transitId}`, token })).status, 200);
    });

    it('is admin-only', async () => {
      assertError(await t.call({ method: 'GET', url: BASE }), 401, 'UNAUTHORIZED');
      assertError(await t.call({ method: 'POST', url: BASE, payload: { name: 'anon' } }), 401, 'UNAUTHORIZED');
    });
  });

  describe('updateEdgeRouter and patchEdgeRouter', () => {
    it('PUT rewrites every updatable field but ignores appData; PATCH changes only what is present', async () => {
      const id = await createEdgeRouter({
        cost: 7,
        noTraversal: true,
        disabled: true,
        roleAttributes: ['x'],
        tags: { a: '1' },
        appData: { keep: true },
      });
      t.clock.advance(1000);
      const put = await change('PUT', id, { name: 'put-renamed', appData: { replaced: true } });
      assert.equal(put.status, 200);
      assert.deepEqual(put.body, { data: {}, meta: { apiEnrollmentVersion: '0.0.1', apiVersion: '0.0.1' } });
      let router = await get(id);
      assert.deepEqual(
        [
          router.name,
          router.cost,
          router.noTraversal,
          router.disabled,
          router.roleAttributes,
          router.tags,
          router.appData,
        ],
        ['put-renamed', 0, false, false, null, {}, { keep: true }],
      );
      assert.equal(router.updatedAt, testTime(1000));
      assert.notEqual(router.createdAt, router.updatedAt);

      const patch = await change('PATCH', id, {
        cost: 12,
        roleAttributes: ['y'],
        appData: { patched: true },
        name: null,
        tags: {},
      });
      assert.equal(patch.status, 200);
      router = await get(id);
      assert.deepEqual(
        [router.name, router.cost, router.roleAttributes, router.tags, router.appData],
        ['put-renamed', 12, ['y'], {}, { keep: true }],
      );
      assert.equal((await change('PATCH', id, { roleAttributes: [] })).status, 200);
      assert.equal((await get(id)).roleAttributes, null);
    });

    it('refuses a cost out of range, a duplicate name and role attributes that look like roles', async () => {
      const id = await createEdgeRouter();
      const other = await createEdgeRouter();
      assertError(await change('PATCH', id, { cost: 65536 }), 400, 'COULD_NOT_VALIDATE', 'cost');
      assertError(await change('PUT', id, { name: 'neg', cost: -1 }), 400, 'COULD_NOT_VALIDATE', 'cost');
      assertError(await change('PATCH', id, { name: (await get(other)).name }), 400, 'COULD_NOT_VALIDATE', 'name');
      assertError(await change('PUT', id, { cost: 1 }), 400, 'COULD_NOT_VALIDATE', 'name');
      assertError(await change('PATCH', id, { roleAttributes: ['@x'] }), 400, 'COULD_NOT_VALIDATE', 'roleAttributes');
    });

    it('answers 404 for an unknown id', async () => {
      assertError(await change('PUT', 'nope', { name: 'x' }), 404, 'NOT_FOUND');
      assertError(await change('PATCH', 'nope', { cost: 1 }), 404, 'NOT_FOUND');
      assertError(await t.call({ method: 'DELETE', url: `${BASE}/nope`, token }), 404, 'NOT_FOUND');
    });
  });

  describe('deleteEdgeRouter', () => {
    it('deletes the router and its role attributes', async () => {
      const id = await createEdgeRouter({ roleAttributes: ['only-on-deleted'] });
      const result = await t.call({ method: 'DELETE', url: `${BASE}/${id}`, token });
      assert.equal(result.status, 200);
      assert.deepEqual(result.body, { data: {}, meta: { apiEnrollmentVersion: '0.0.1', apiVersion: '0.0.1' } });
      assertError(await t.call({ method: 'GET', url: `${BASE}/${id}`, token }), 404, 'NOT_FOUND');
      const attributes = await t.call({ method: 'GET', url: `${API}/edge-router-role-attributes`, token });
      assert.equal((attributes.body as { data: string[] }).data.includes('only-on-deleted'), false);
    });
  });

  describe('tunneler-enabled edge routers', () => {
    it('create a Router identity and a system edge router policy with the router, in the same write', async () => {
      const id = await createEdgeRouter({ name: 'tunneler-on-create', isTunnelerEnabled: true });
      assert.equal((await get(id)).isTunnelerEnabled, true);
      const identity = await t.call({ method: 'GET', url: `${API}/identities/${id}`, token });
      assert.equal(identity.status, 200);
      const data = (identity.body as { data: Record<string, unknown> }).data;
      assert.deepEqual([data.id, data.name, data.typeId, data.isAdmin], [id, 'tunneler-on-create', 'Router', false]);
      const policy = await systemPolicy(id);
      assert.ok(policy);
      assert.deepEqual(
        [
          policy.name,
          policy.semantic,
          policy.is_system,
          JSON.parse(policy.identity_roles as string),
          JSON.parse(policy.edge_router_roles as string),
        ],
        [`edge-router-${id}-system`, 'AnyOf', 1, [`@${id}`], [`@${id}`]],
      );
      assert.deepEqual([policy.identityRoles, policy.edgeRouterRoles], [[`@${id}`], [`@${id}`]]);
      const systemIdentities = await t.call({
        method: 'GET',
        url: `${API}/identities?filter=${encodeURIComponent(`isSystem = true and type = "Router" and id = "${id}"`)}`,
        token,
      });
      assert.equal((systemIdentities.body as { data: unknown[] }).data.length, 1);
    });

    it('follow the flag through PATCH and PUT, and the identity follows renames', async () => {
      const id = await createEdgeRouter({ name: 'tunneler-later' });
      assert.equal(await identityStatus(id), 404);
      assert.equal(await systemPolicy(id), undefined);

      assert.equal((await change('PATCH', id, { isTunnelerEnabled: true })).status, 200);
      assert.equal(await identityStatus(id), 200);
      assert.ok(await systemPolicy(id));

      assert.equal((await change('PATCH', id, { name: 'tunneler-renamed' })).status, 200);
      const renamed = await t.call({ method: 'GET', url: `${API}/identities/${id}`, token });
      assert.equal((renamed.body as { data: { name: string } }).data.name, 'tunneler-renamed');
      assert.equal((await change('PATCH', id, { cost: 3 })).status, 200);
      assert.equal(await identityStatus(id), 200);

      assert.equal((await change('PATCH', id, { isTunnelerEnabled: false })).status, 200);
      assert.equal(await identityStatus(id), 404);
      assert.equal(await systemPolicy(id), undefined);

      assert.equal((await change('PUT', id, { name: 'tunneler-put', isTunnelerEnabled: true })).status, 200);
      assert.equal(await identityStatus(id), 200);
      // PUT without the flag turns tunneling off, as every field PUT leaves out takes its empty value.
      assert.equal((await change('PUT', id, { name: 'tunneler-put' })).status, 200);
      assert.equal(await identityStatus(id), 404);
      assert.equal(await systemPolicy(id), undefined);
    });

    it('are removed with the router', async () => {
      const id = await createEdgeRouter({ isTunnelerEnabled: true });
      assert.equal((await t.call({ method: 'DELETE', url: `${BASE}/${id}`, token })).status, 200);
      assert.equal(await identityStatus(id), 404);
      assert.equal(await systemPolicy(id), undefined);
    });

    it('refuse a router name another identity holds, and write nothing', async () => {
      await createIdentity(t, token, { name: 'person-and-router' });
      const result = await post({ name: 'person-and-router', isTunnelerEnabled: true });
      assertError(result, 400, 'COULD_NOT_VALIDATE', 'name');
      assert.equal(
        (result.body as { error: { cause: { reason: string } } }).error.cause.reason,
        "duplicate value 'person-and-router' in unique index on identities store",
      );
      assert.equal((await list('name = "person-and-router"')).length, 0);
      const id = await createEdgeRouter({ isTunnelerEnabled: true });
      assertError(await change('PATCH', id, { name: 'person-and-router' }), 400, 'COULD_NOT_VALIDATE', 'name');
      assert.notEqual((await get(id)).name, 'person-and-router');
    });
  });

  describe('the Router identity through /identities', () => {
    it('cannot be deleted, renamed or retyped, but its role attributes can change', async () => {
      const id = await createEdgeRouter({ name: 'guarded', isTunnelerEnabled: true });
      const url = `${API}/identities/${id}`;
      const deletion = await t.call({ method: 'DELETE', url, token });
      assertError(deletion, 400, 'ENTITY_CAN_NOT_BE_DELETED');
      assert.deepEqual((deletion.body as { error: { cause: unknown } }).error.cause, {
        code: 'UNHANDLED',
        message: 'cannot delete router identity guarded until associated router is deleted',
      });
      assertError(
        await t.call({ method: 'PATCH', url, token, payload: { name: 'other' } }),
        400,
        'COULD_NOT_VALIDATE',
        'name',
      );
      assertError(
        await t.call({ method: 'PUT', url, token, payload: { name: 'guarded', type: 'User', isAdmin: false } }),
        400,
        'COULD_NOT_VALIDATE',
        'typeId',
      );
      assert.equal((await t.call({ method: 'PATCH', url, token, payload: { roleAttributes: ['hosts'] } })).status, 200);
      assert.equal(
        (
          await t.call({
            method: 'PUT',
            url,
            token,
            payload: { name: 'guarded', type: 'Router', isAdmin: false, roleAttributes: ['hosts'] },
          })
        ).status,
        200,
      );
      const identity = (await t.call({ method: 'GET', url, token })).body as { data: Record<string, unknown> };
      assert.deepEqual(
        [identity.data.name, identity.data.typeId, identity.data.roleAttributes],
        ['guarded', 'Router', ['hosts']],
      );
    });
  });

  describe('listEdgeRouters', () => {
    it('lists only edge routers, with their filterable fields', async () => {
      const result = await t.call({ method: 'GET', url: `${BASE}?limit=-1`, token });
      assert.equal(result.status, 200);
      const { data, meta } = result.body as { data: EdgeRouter[]; meta: { filterableFields: string[] } };
      assert.ok(data.length > 0);
      assert.equal(
        data.some((r) => r.name === 'only-transit' || r.name === 'transit-taken'),
        false,
      );
      assert.deepEqual([...meta.filterableFields].sort(), [
        'connected',
        'cost',
        'createdAt',
        'disabled',
        'fingerprint',
        'id',
        'isSystem',
        'isTunnelerEnabled',
        'isVerified',
        'name',
        'noTraversal',
        'online',
        'roleAttributes',
        'tags',
        'updatedAt',
      ]);
    });

    it('filters and sorts by connected and online as upstream answers for routers that never connected', async () => {
      const router = await createEdgeRouter({ name: 'live-state' });
      const scope = ' and name = "live-state"';
      for (const symbol of ['connected', 'online']) {
        assert.deepEqual(
          (await list(`${symbol} = false${scope}`)).map((r) => r.id),
          [router],
          symbol,
        );
        assert.deepEqual(await list(`${symbol} = true${scope}`), [], symbol);
        assert.deepEqual(await list(`${symbol} = null${scope}`), [], symbol);
        assert.deepEqual(
          (await list(`not ${symbol}${scope} sort by ${symbol} desc, name`)).map((r) => r.id),
          [router],
          symbol,
        );
        const sorted = await t.call({
          method: 'GET',
          url: `${BASE}?sort=${encodeURIComponent(`${symbol} asc`)}&limit=1`,
          token,
        });
        assert.equal(sorted.status, 200, sorted.text);
      }
      const mistyped = await t.call({
        method: 'GET',
        url: `${BASE}?filter=${encodeURIComponent('connected = "x"')}`,
        token,
      });
      assertError(mistyped, 400, 'INVALID_FILTER');
      assert.equal(
        (mistyped.body as { error: { cause: { message: string } } }).error.cause.message,
        'operation connected = x is not supported with operands types bool, string',
      );
    });

    it('filters by cost, by the tunneler flag and by role attributes', async () => {
      const cheap = await createEdgeRouter({ name: 'filter-cheap', cost: 5, roleAttributes: ['x', 'y'] });
      const dear = await createEdgeRouter({
        name: 'filter-dear',
        cost: 11,
        isTunnelerEnabled: true,
        roleAttributes: ['y'],
      });
      const scope = ' and name contains "filter-"';
      assert.deepEqual(
        (await list(`cost between 0 and 10${scope}`)).map((r) => r.id),
        [cheap],
      );
      assert.deepEqual(
        (await list(`isTunnelerEnabled = true${scope}`)).map((r) => r.id),
        [dear],
      );
      assert.deepEqual(
        (await list(`anyOf(roleAttributes) = "x"${scope}`)).map((r) => r.id),
        [cheap],
      );
      assert.deepEqual(
        (await list(`anyOf(roleAttributes) = "y"${scope} sort by cost desc`)).map((r) => r.id),
        [dear, cheap],
      );
      assertError(
        await t.call({ method: 'GET', url: `${BASE}?filter=${encodeURIComponent('appData = "x"')}`, token }),
        400,
        'INVALID_FILTER',
      );
      assertError(
        await t.call({ method: 'GET', url: `${BASE}?filter=${encodeURIComponent('isEdge = true')}`, token }),
        400,
        'INVALID_FILTER',
      );
    });

    it('narrows by roleFilter and roleSemantic, never showing transit routers', async () => {
      const both = await createEdgeRouter({ roleAttributes: ['rf-a', 'rf-b'] });
      const onlyA = await createEdgeRouter({ roleAttributes: ['rf-a'] });
      const plain = await createEdgeRouter();
      const transit = await t.call({
        method: 'POST',
        url: `${API}/transit-routers`,
        token,
        payload: { name: 'rf-transit' },
      });
      const transitId = (transit.body as { data: { id: string } }).data.id;
      const ids = async (query: string) => {
        const result = await t.call({ method: 'GET', url: `${BASE}?limit=-1&${query}`, token });
        assert.equal(result.status, 200, result.text);
        return (result.body as { data: EdgeRouter[] }).data.map((r) => r.id).sort();
      };
      assert.deepEqual(await ids('roleFilter=%23rf-a&roleFilter=%23rf-b'), [both]);
      assert.deepEqual(await ids('roleFilter=%23rf-a&roleFilter=%23rf-b&roleSemantic=AnyOf'), [both, onlyA].sort());
      assert.deepEqual(
        await ids(`roleFilter=%23rf-b&roleFilter=%40${plain}&roleFilter=%40${transitId}&roleSemantic=AnyOf`),
        [both, plain].sort(),
      );
    });
  });

  describe('listEdgeRouterRoleAttributes', () => {
    it('lists the distinct attributes in use, sorted, with filter', async () => {
      await createEdgeRouter({ roleAttributes: ['zulu', 'alpha'] });
      await createEdgeRouter({ roleAttributes: ['alpha', 'mike'] });
      const all = await t.call({ method: 'GET', url: `${API}/edge-router-role-attributes`, token });
      assert.equal(all.status, 200);
      const values = (all.body as { data: string[] }).data;
      assert.deepEqual(values, [...new Set(values)].sort());
      assert.ok(['alpha', 'mike', 'zulu'].every((v) => values.includes(v)));
      assert.match(all.text, /"limit":9223372036854775807/);
      const filtered = await t.call({
        method: 'GET',
        url: `${API}/edge-router-role-attributes?filter=${encodeURIComponent('id contains "ulu"')}`,
        token,
      });
      assert.deepEqual((filtered.body as { data: string[] }).data, ['zulu']);
    });
  });

  describe('listSummary', () => {
    it('counts all routers, edge routers and edge router policies', async () => {
      const fresh = await buildTestApp();
      try {
        const admin = await fresh.loginAsAdmin();
        const summary = async () =>
          (
            (await fresh.call({ method: 'GET', url: `${API}/summary`, token: admin })).body as {
              data: Record<string, number>;
            }
          ).data;
        assert.deepEqual(
          [(await summary()).routers, (await summary())['routers.edge'], (await summary()).edgeRouterPolicies],
          [0, 0, 0],
        );
        for (const [path, payload] of [
          ['edge-routers', { name: 'e1', isTunnelerEnabled: true }],
          ['edge-routers', { name: 'e2' }],
          ['transit-routers', { name: 't1' }],
        ] as const) {
          assert.equal(
            (await fresh.call({ method: 'POST', url: `${API}/${path}`, token: admin, payload })).status,
            201,
          );
        }
        const counts = await summary();
        assert.deepEqual(
          [counts.routers, counts['routers.edge'], counts.edgeRouterPolicies, counts.identities],
          [3, 2, 1, 2],
        );
      } finally {
        await fresh.close();
      }
    });
  });
});
