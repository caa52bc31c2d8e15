import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp, testTime } from '../../support/test-app.js';
import { assertError } from '../../support/conformance.js';
import { createEntity } from '../../support/factories.js';
import { selectRows } from '../../../src/store/queries/table-rows.js';
import { MANAGEMENT as API } from '../../support/api-paths.js';

type Router = Record<string, unknown> & { id: string; name: string };

const PATHS = ['routers', 'transit-routers'] as const;

describe('routers and transit routers', () => {
  let t: TestApp;
  let token: string;
  let counter = 0;
  const createRouter = (path: (typeof PATHS)[number], body: Record<string, unknown> = {}) =>
    createEntity(t, token, path, { name: `router-${++counter}`, ...body });
  const createEdgeRouter = (body: Record<string, unknown> = {}) =>
    createEntity(t, token, 'edge-routers', { name: `edge-${++counter}`, ...body });
  const get = async (path: string, id: string) => {
    const result = await t.call({ method: 'GET', url: `${API}/${path}/${id}`, token });
    assert.equal(result.status, 200, result.text);
    return (result.body as { data: Router }).data;
  };
  const list = async (path: string, filter = 'true') => {
    const result = await t.call({
      method: 'GET',
      url: `${API}/${path}?limit=-1&filter=${encodeURIComponent(filter)}`,
      token,
    });
    assert.equal(result.status, 200, result.text);
    return result.body as { data: Router[]; meta: { filterableFields: string[]; pagination: { totalCount: number } } };
  };

  before(async () => {
    t = await buildTestApp();
    token = await t.loginAsAdmin();
  });
  after(() => t.close());

  describe('createRouter and createTransitRouter', () => {
    it('create through either path, linking to transit-routers, and show an unenrolled, offline router', async () => {
      for (const path of PATHS) {
        const result = await t.call({
          method: 'POST',
          url: `${API}/${path}`,
          token,
          payload: { name: `created-via-${path}`, cost: 9, noTraversal: true, disabled: true, tags: { k: 'v' } },
        });
        assert.equal(result.status, 201);
        const { id, _links } = (result.body as { data: { id: string; _links: unknown } }).data;
        assert.match(id, /^[0-9A-Za-z.-]{9,}$/);
        assert.deepEqual(_links, { self: { href: `./transit-routers/${id}` } });
        for (const readPath of PATHS) {
          const router = await get(readPath, id);
          const expected = {
            _links: { self: { href: `./transit-routers/${id}` } },
            name: `created-via-${path}`,
            cost: 9,
            noTraversal: true,
            disabled: true,
            tags: { k: 'v' },
            isOnline: false,
            isVerified: false,
            fingerprint: null,
            unverifiedFingerprint: null,
            unverifiedCertPem: null,
            // The trott enrollment every new transit router gets (test/api/client/enroll-router.test.ts checks its JWT).
            enrollmentCreatedAt: testTime(),
            enrollmentExpiresAt: testTime(3 * 3600_000),
          };
          for (const [key, value] of Object.entries(expected))
            assert.deepEqual(router[key], value, `${readPath} ${key}`);
          for (const key of ['enrollmentJwt', 'enrollmentToken'])
            assert.equal(typeof router[key], 'string', `${readPath} ${key}`);
          for (const edgeOnly of ['roleAttributes', 'isTunnelerEnabled', 'appData', 'isEdge'])
            assert.equal(edgeOnly in router, false, edgeOnly);
        }
      }
    });

    it('defaults cost, noTraversal and disabled', async () => {
      const id = await createRouter('routers', { cost: null });
      const router = await get('routers', id);
      assert.deepEqual([router.cost, router.noTraversal, router.disabled, router.tags], [0, false, false, {}]);
    });

    it('refuses a cost out of range, a missing, empty or duplicate name (edge routers included)', async () => {
      for (const path of PATHS) {
        const post = (payload: unknown) => t.call({ method: 'POST', url: `${API}/${path}`, token, payload });
        assertError(await post({ name: `low-${path}`, cost: -1 }), 400, 'COULD_NOT_VALIDATE', 'cost');
        assertError(await post({ name: `high-${path}`, cost: 65536 }), 400, 'COULD_NOT_VALIDATE', 'cost');
        assertError(await post({ cost: 1 }), 400, 'COULD_NOT_VALIDATE', 'name');
        assertError(await post({ name: '' }), 400, 'COULD_NOT_VALIDATE', 'name');
      }
      const transitId = await createRouter('transit-routers', { name: 'dup-transit' });
      const duplicate = await t.call({
        method: 'POST',
        url: `${API}/routers`,
        token,
        payload: { name: 'dup-transit' },
      });
      assertError(duplicate, 400, 'COULD_NOT_VALIDATE', 'name');
      // Fabric routers have no name check upstream: the routers store's index refuses them, in its words.
      assert.equal(
        (duplicate.body as { error: { cause: { reason: string } } }).error.cause.reason,
        "duplicate value 'dup-transit' in unique index on routers store",
      );
      await createEdgeRouter({ name: 'dup-edge' });
      assertError(
        await t.call({ method: 'POST', url: `${API}/transit-routers`, token, payload: { name: 'dup-edge' } }),
        400,
        'COULD_NOT_VALIDATE',
        'name',
      );
      assertError(
        await t.call({ method: 'PATCH', url: `${API}/routers/${transitId}`, token, payload: { name: 'dup-edge' } }),
        400,
        'COULD_NOT_VALIDATE',
        'name',
      );
    });
  });

  describe('listRouters and listTransitRouters', () => {
    it('list every router, edge routers included (reported verified), with the transit router symbols', async () => {
      const transitId = await createRouter('routers', { name: 'listed-transit' });
      const edgeId = await createEdgeRouter({ name: 'listed-edge', isTunnelerEnabled: true });
      for (const path of PATHS) {
        const { data, meta } = await list(path, 'name contains "listed-"');
        assert.deepEqual(data.map((r) => r.id).sort(), [transitId, edgeId].sort());
        const edge = data.find((r) => r.id === edgeId)!;
        assert.deepEqual(
          [edge.isVerified, 'enrollmentJwt' in edge, edge._links],
          [true, false, { self: { href: `./transit-routers/${edgeId}` } }],
        );
        assert.deepEqual([...meta.filterableFields].sort(), [
          'cost',
          'createdAt',
          'disabled',
          'fingerprint',
          'id',
          'isSystem',
          'name',
          'noTraversal',
          'tags',
          'updatedAt',
        ]);
      }
      assert.equal(
        (await list('routers')).meta.pagination.totalCount,
        (await list('transit-routers')).meta.pagination.totalCount,
      );
    });

    it('filters by cost and name, and refuses edge router symbols', async () => {
      const cheap = await createRouter('transit-routers', { name: 'cost-cheap', cost: 10 });
      await createRouter('transit-routers', { name: 'cost-dear', cost: 11 });
      const cheapEdge = await createEdgeRouter({ name: 'cost-edge', cost: 0 });
      // Half-open, as upstream: 0 <= cost < 11.
      assert.deepEqual(
        (await list('routers', 'cost between 0 and 11 and name contains "cost-" sort by name')).data.map((r) => r.id),
        [cheap, cheapEdge],
      );
      assert.deepEqual(
        (await list('transit-routers', 'name = "cost-cheap"')).data.map((r) => r.id),
        [cheap],
      );
      for (const filter of ['isTunnelerEnabled = true', 'anyOf(roleAttributes) = "x"', 'isVerified = true']) {
        assertError(
          await t.call({ method: 'GET', url: `${API}/routers?filter=${encodeURIComponent(filter)}`, token }),
          400,
          'INVALID_FILTER',
        );
      }
    });
  });

  describe('updateRouter, patchRouter and their transit-router twins', () => {
    it('PUT replaces name, tags, cost, noTraversal and disabled; PATCH only what is present', async () => {
      for (const path of PATHS) {
        const id = await createRouter(path, { cost: 4, noTraversal: true, disabled: true, tags: { a: 'b' } });
        t.clock.advance(1000);
        const put = await t.call({
          method: 'PUT',
          url: `${API}/${path}/${id}`,
          token,
          payload: { name: `put-${path}` },
        });
        assert.equal(put.status, 200);
        assert.deepEqual(put.body, { data: {}, meta: { apiEnrollmentVersion: '0.0.1', apiVersion: '0.0.1' } });
        let router = await get(path, id);
        assert.deepEqual(
          [router.name, router.cost, router.noTraversal, router.disabled, router.tags],
          [`put-${path}`, 0, false, false, {}],
        );
        assert.notEqual(router.updatedAt, router.createdAt);
        const patch = await t.call({
          method: 'PATCH',
          url: `${API}/${path}/${id}`,
          token,
          payload: { cost: 65535, tags: { c: true }, name: null },
        });
        assert.equal(patch.status, 200);
        router = await get(path, id);
        assert.deepEqual(
          [router.name, router.cost, router.noTraversal, router.tags],
          [`put-${path}`, 65535, false, { c: true }],
        );
        assertError(
          await t.call({ method: 'PATCH', url: `${API}/${path}/${id}`, token, payload: { cost: 65536 } }),
          400,
          'COULD_NOT_VALIDATE',
          'cost',
        );
        assertError(
          await t.call({ method: 'PUT', url: `${API}/${path}/${id}`, token, payload: { name: 'x', cost: -1 } }),
          400,
          'COULD_NOT_VALIDATE',
          'cost',
        );
      }
    });

    it('refuse to change an edge router with 409 CAN_NOT_UPDATE_ROUTER', async () => {
      const id = await createEdgeRouter({ name: 'read-only-edge', cost: 2 });
      for (const path of PATHS) {
        assertError(
          await t.call({ method: 'PUT', url: `${API}/${path}/${id}`, token, payload: { name: 'changed' } }),
          409,
          'CAN_NOT_UPDATE_ROUTER',
        );
        assertError(
          await t.call({ method: 'PATCH', url: `${API}/${path}/${id}`, token, payload: { cost: 3 } }),
          409,
          'CAN_NOT_UPDATE_ROUTER',
        );
      }
      const edge = await get('edge-routers', id);
      assert.deepEqual([edge.name, edge.cost], ['read-only-edge', 2]);
    });

    it('answer 404 for an unknown id', async () => {
      for (const path of PATHS) {
        assertError(await t.call({ method: 'GET', url: `${API}/${path}/nope`, token }), 404, 'NOT_FOUND');
        assertError(
          await t.call({ method: 'PUT', url: `${API}/${path}/nope`, token, payload: { name: 'x' } }),
          404,
          'NOT_FOUND',
        );
        assertError(
          await t.call({ method: 'PATCH', url: `${API}/${path}/nope`, token, payload: { cost: 1 } }),
          404,
          'NOT_FOUND',
        );
        assertError(await t.call({ method: 'DELETE', url: `${API}/${path}/nope`, token }), 404, 'NOT_FOUND');
      }
    });
  });

  describe('deleteRouter and deleteTransitRouter', () => {
    it('delete a transit router through either path', async () => {
      for (const path of PATHS) {
        const id = await createRouter(path);
        const result = await t.call({ method: 'DELETE', url: `${API}/${path}/${id}`, token });
        assert.equal(result.status, 200);
        assert.deepEqual(result.body, { data: {}, meta: { apiEnrollmentVersion: '0.0.1', apiVersion: '0.0.1' } });
        assertError(await t.call({ method: 'GET', url: `${API}/routers/${id}`, token }), 404, 'NOT_FOUND');
      }
    });

    it('delete an edge router whole, with its Router identity and system policy', async () => {
      const id = await createEdgeRouter({ isTunnelerEnabled: true, roleAttributes: ['gone-with-router'] });
      assert.equal((await t.call({ method: 'GET', url: `${API}/identities/${id}`, token })).status, 200);
      assert.equal((await t.call({ method: 'DELETE', url: `${API}/transit-routers/${id}`, token })).status, 200);
      assertError(await t.call({ method: 'GET', url: `${API}/edge-routers/${id}`, token }), 404, 'NOT_FOUND');
      assertError(await t.call({ method: 'GET', url: `${API}/identities/${id}`, token }), 404, 'NOT_FOUND');
      const policy = await t.deps.store.read(async (db) => (await selectRows(db, 'edge_router_policies', { id }))[0]);
      assert.equal(policy, undefined);
      const attributes = await t.call({ method: 'GET', url: `${API}/edge-router-role-attributes`, token });
      assert.equal((attributes.body as { data: string[] }).data.includes('gone-with-router'), false);
    });

    it('is admin-only', async () => {
      assertError(await t.call({ method: 'GET', url: `${API}/routers` }), 401, 'UNAUTHORIZED');
      assertError(await t.call({ method: 'DELETE', url: `${API}/transit-routers/some-id` }), 401, 'UNAUTHORIZED');
    });
  });
});
