// `/fabric/v1` routers, services and terminators: the fabric views of the edge tables, their access and envelopes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, testDatabaseUrl, type TestApp } from '../../support/test-app.js';
import { assertError } from '../../support/conformance.js';
import {
  createEdgeRouter,
  createService,
  createTerminator,
  createTransitRouter,
  createUser,
  login,
} from '../../support/factories.js';

type Entity = Record<string, unknown> & { id: string };
type ListBody = {
  data: Entity[];
  meta: Record<string, unknown> & { pagination: { limit: number; offset: number; totalCount: number } };
};

describe('fabric API: routers, services, terminators', () => {
  let t: TestApp;
  let token: string;
  let edgeRouterId: string;
  let transitRouterId: string;
  let serviceId: string;
  let terminatorId: string;
  const base = '/fabric/v1';
  const list = async (path: string, query = '') => {
    const result = await t.call({ method: 'GET', url: `${base}/${path}${query}`, token });
    assert.equal(result.status, 200, result.text);
    return result.body as ListBody;
  };
  const detail = async (path: string) => {
    const result = await t.call({ method: 'GET', url: `${base}/${path}`, token });
    assert.equal(result.status, 200, result.text);
    return result.body as { data: Entity; meta: Record<string, unknown> };
  };

  before(async () => {
    t = await buildTestApp();
    token = await t.loginAsAdmin();
    edgeRouterId = await createEdgeRouter(t, token, { name: 'fabric-er', cost: 7, noTraversal: true });
    transitRouterId = await createTransitRouter(t, token, { name: 'fabric-tr', disabled: true });
    serviceId = await createService(t, token, {
      name: 'fabric-svc',
      terminatorStrategy: 'weighted',
      roleAttributes: ['a'],
    });
    terminatorId = await createTerminator(t, token, serviceId, edgeRouterId, {
      address: 'tcp:localhost:9',
      identity: 'host-7',
    });
  });
  after(() => t.close());

  describe('access', () => {
    it('answers 401 UNAUTHORIZED without a cause when no session is presented (no security layer upstream)', async () => {
      const result = await t.call({ method: 'GET', url: `${base}/routers` });
      assertError(result, 401, 'UNAUTHORIZED');
      assert.equal((result.body as { error: { cause?: unknown } }).error.cause, undefined);
    });

    it('answers 401 UNAUTHORIZED to an unknown session and to a non-admin one', async () => {
      assertError(
        await t.call({ method: 'GET', url: `${base}/circuits`, token: 'not-a-session' }),
        401,
        'UNAUTHORIZED',
      );
      const user = await createUser(t, token);
      const userToken = await login(t, user.username, user.password, 'management');
      assertError(await t.call({ method: 'GET', url: `${base}/routers`, token: userToken }), 401, 'UNAUTHORIZED');
      assertError(await t.call({ method: 'DELETE', url: `${base}/circuits/x`, token: userToken }), 401, 'UNAUTHORIZED');
    });

    it('accepts the admin session of the edge APIs, as the ziti CLI sends it (zt-session)', async () => {
      assert.equal((await list('services')).data.length > 0, true);
    });
  });

  describe('listRouters / detailRouter', () => {
    it('lists every router, edge routers included, with the fabric fields and no enrollment fields', async () => {
      const body = await list('routers', '?filter=name contains "fabric-"&sort=name');
      assert.deepEqual(
        body.data.map((r) => r.name),
        ['fabric-er', 'fabric-tr'],
      );
      const [edge, transit] = body.data as [Entity, Entity];
      assert.deepEqual(
        [edge.id, edge.cost, edge.noTraversal, edge.disabled, edge.connected, edge.listenerAddresses, edge.fingerprint],
        [edgeRouterId, 7, true, false, false, null, null],
      );
      assert.equal(transit.disabled, true);
      assert.ok(!('versionInfo' in edge), 'a router that is not connected has no versionInfo');
      assert.ok(!('isOnline' in edge) && !('enrollmentJwt' in transit) && !('isVerified' in edge));
      assert.deepEqual(edge._links, {
        self: { href: `./routers/${edgeRouterId}` },
        terminators: { href: `./routers/${edgeRouterId}/terminators` },
      });
    });

    it('writes upstream fabric meta: filterable fields and pagination, no version fields', async () => {
      const { meta } = await list('routers', '?limit=1&offset=1');
      assert.deepEqual(Object.keys(meta), ['filterableFields', 'pagination']);
      assert.deepEqual(meta.pagination, { limit: 1, offset: 1, totalCount: 2 });
      // As v1.1.8 lists them (`connected` included, unlike the edge API's /routers).
      assert.deepEqual([...(meta.filterableFields as string[])].sort(), [
        'connected',
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
      assert.deepEqual(
        (await list('routers', '?filter=connected = false and name = "fabric-er"')).data.map((r) => r.id),
        [edgeRouterId],
      );
      assert.deepEqual((await list('routers', '?filter=connected = true')).data, []);
      const one = await detail(`routers/${transitRouterId}`);
      assert.deepEqual(one.meta, {});
      assert.equal(one.data.name, 'fabric-tr');
    });

    it('refuses a bad filter and a bad sort, and answers 404 for an unknown id', async () => {
      assertError(
        await t.call({ method: 'GET', url: `${base}/routers?filter=nope = 1`, token }),
        400,
        'INVALID_FILTER',
      );
      assertError(
        await t.call({ method: 'GET', url: `${base}/routers?sort=nope`, token }),
        400,
        'INVALID_SORT_IDENTIFIER',
      );
      assertError(await t.call({ method: 'GET', url: `${base}/routers?limit=x`, token }), 400, 'COULD_NOT_VALIDATE');
      assertError(await t.call({ method: 'GET', url: `${base}/routers/missing`, token }), 404, 'NOT_FOUND');
    });
  });

  describe('listServices / detailService', () => {
    it('shows name and terminatorStrategy only', async () => {
      const { data } = await detail(`services/${serviceId}`);
      assert.deepEqual(Object.keys(data).sort(), [
        '_links',
        'createdAt',
        'id',
        'name',
        'tags',
        'terminatorStrategy',
        'updatedAt',
      ]);
      assert.deepEqual([data.name, data.terminatorStrategy], ['fabric-svc', 'weighted']);
      assert.deepEqual(data._links, {
        self: { href: `./services/${serviceId}` },
        terminators: { href: `./services/${serviceId}/terminators` },
      });
      const listed = await list('services', '?filter=terminatorStrategy = "weighted"');
      assert.deepEqual(
        listed.data.map((s) => s.id),
        [serviceId],
      );
      assert.ok((listed.meta.filterableFields as string[]).includes('terminatorStrategy'));
      assert.ok(!(listed.meta.filterableFields as string[]).includes('roleAttributes'));
    });
  });

  describe('listTerminators / detailTerminator and the sub-lists', () => {
    it('shows the fabric fields with references into the fabric API', async () => {
      const { data } = await detail(`terminators/${terminatorId}`);
      assert.deepEqual(
        [
          data.serviceId,
          data.routerId,
          data.binding,
          data.address,
          data.instanceId,
          data.hostId,
          data.cost,
          data.precedence,
          data.dynamicCost,
        ],
        [serviceId, edgeRouterId, 'transport', 'tcp:localhost:9', 'host-7', '', 0, 'default', 0],
      );
      assert.deepEqual(data.router, {
        _links: {
          self: { href: `./routers/${edgeRouterId}` },
          terminators: { href: `./routers/${edgeRouterId}/terminators` },
        },
        entity: 'routers',
        id: edgeRouterId,
        name: 'fabric-er',
      });
      assert.deepEqual((data.service as Entity).entity, 'services');
      assert.ok(!('identity' in data));
    });

    it("filters by the same symbols as the edge view, and lists a router's and a service's terminators", async () => {
      assert.deepEqual(
        (await list('terminators', '?filter=router.name = "fabric-er"')).data.map((x) => x.id),
        [terminatorId],
      );
      assert.deepEqual(
        (await list(`routers/${edgeRouterId}/terminators`)).data.map((x) => x.id),
        [terminatorId],
      );
      assert.deepEqual((await list(`routers/${transitRouterId}/terminators`)).data, []);
      assert.deepEqual(
        (await list(`services/${serviceId}/terminators`)).data.map((x) => x.id),
        [terminatorId],
      );
      // Upstream answers an unknown parent with an empty list, not 404.
      assert.deepEqual((await list('services/missing/terminators')).data, []);
      assert.deepEqual((await list('routers/missing/terminators')).meta.pagination, {
        limit: 10,
        offset: 0,
        totalCount: 0,
      });
    });
  });

  describe('deletes', () => {
    it('deletes a terminator, a service and a router as the edge APIs do, accepting the body the CLI always sends', async () => {
      const service = await createService(t, token);
      const router = await createTransitRouter(t, token);
      const terminator = await createTerminator(t, token, service, router, { address: 'tcp:x:1' });
      for (const path of [`terminators/${terminator}`, `services/${service}`, `routers/${router}`]) {
        // `ziti fabric delete` sends {"immediate":false} with every delete (cmd/fabric/delete.go).
        const result = await t.call({ method: 'DELETE', url: `${base}/${path}`, token, payload: { immediate: false } });
        assert.equal(result.status, 200, result.text);
        assert.equal(result.text, '{"data":{},"meta":{}}\n');
        assertError(await t.call({ method: 'GET', url: `${base}/${path}`, token }), 404, 'NOT_FOUND');
      }
      assertError(await t.call({ method: 'DELETE', url: `${base}/routers/${router}`, token }), 404, 'NOT_FOUND');
    });
  });

  describe('the error envelope', () => {
    const meta = (result: { body: unknown }) => (result.body as { meta: unknown }).meta;
    const edge = { apiEnrollmentVersion: '0.0.1', apiVersion: '0.0.1' };
    const fabric = { apiEnrollmentVersion: '1.0.0', apiVersion: '1.0.0' };

    it('carries the edge versions for what a handler refuses (access, not found, filter)', async () => {
      for (const result of [
        await t.call({ method: 'GET', url: `${base}/routers` }),
        await t.call({ method: 'GET', url: `${base}/routers/missing`, token }),
        await t.call({ method: 'GET', url: `${base}/links?filter=(`, token }),
      ]) {
        assert.deepEqual(meta(result), edge, result.text);
      }
    });

    it('carries the fabric versions for what the framework refuses (no route, wrong method, invalid request)', async () => {
      const unknown = await t.call({ method: 'GET', url: `${base}/version`, token });
      assertError(unknown, 404, 'NOT_FOUND');
      const wrongMethod = await t.call({ method: 'PUT', url: `${base}/circuits/x`, token, payload: {} });
      assertError(wrongMethod, 405, 'METHOD_NOT_ALLOWED');
      const invalid = await t.call({ method: 'GET', url: `${base}/terminators?offset=x`, token });
      assertError(invalid, 400, 'COULD_NOT_VALIDATE');
      const malformed = await t.call({
        method: 'DELETE',
        url: `${base}/circuits/x`,
        token,
        headers: { 'content-type': 'application/json' },
        payload: '{"immediate":',
      });
      assertError(malformed, 400, 'COULD_NOT_PARSE_BODY');
      for (const result of [unknown, wrongMethod, invalid, malformed])
        assert.deepEqual(meta(result), fabric, result.text);
    });
  });

  describe('database', () => {
    it("runs the controller's integrity scan and shows its results with the fabric meta", async () => {
      const started = await t.call({ method: 'POST', url: `${base}/database/check-data-integrity`, token });
      assert.equal(started.status, 202, started.text);
      assert.equal(started.text, '{"data":{},"meta":{}}\n');
      let results = await t.call({ method: 'GET', url: `${base}/database/data-integrity-results`, token });
      for (let tries = 0; (results.body as { data: { inProgress: boolean } }).data.inProgress && tries < 100; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        results = await t.call({ method: 'GET', url: `${base}/database/data-integrity-results`, token });
      }
      const body = results.body as { data: { inProgress: boolean; results: unknown }; meta: unknown };
      assert.deepEqual(
        [body.data.inProgress, body.data.results, body.meta],
        [false, null, { pagination: { limit: -1, offset: 0, totalCount: 0 } }],
      );
    });

    it("takes a snapshot at POST /database, under the same once-a-minute rule as the edge API's /database/snapshot", async () => {
      const fabric = await t.call({ method: 'POST', url: `${base}/database`, token });
      const edge = await t.call({ method: 'POST', url: '/edge/management/v1/database/snapshot', token });
      if (testDatabaseUrl) {
        // PostgreSQL is backed up with its own tools; both APIs say so alike.
        assertError(fabric, 501, 'NOT_IMPLEMENTED');
        assertError(edge, 501, 'NOT_IMPLEMENTED');
        return;
      }
      assert.equal(fabric.text, '{"data":{},"meta":{}}\n');
      assertError(edge, 429, 'RATE_LIMITED');
      assertError(await t.call({ method: 'POST', url: `${base}/database`, token }), 429, 'RATE_LIMITED');
    });
  });

  describe('operations not built yet', () => {
    it('answers 501 NOT_IMPLEMENTED in the envelope once the request is valid and the caller an admin', async () => {
      const result = await t.call({
        method: 'POST',
        url: `${base}/routers`,
        token,
        payload: { id: 'r1', name: 'r', fingerprint: 'f', cost: 1, noTraversal: false, disabled: false },
      });
      assertError(result, 501, 'NOT_IMPLEMENTED');
      assertError(
        await t.call({
          method: 'POST',
          url: `${base}/routers`,
          payload: { id: 'r1', name: 'r', fingerprint: 'f', cost: 1, noTraversal: false, disabled: false },
        }),
        401,
        'UNAUTHORIZED',
      );
    });
  });
});
