import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../../support/test-app.js';
import { assertError } from '../../support/conformance.js';
import { createEdgeRouter, createService, createTerminator, createTransitRouter } from '../../support/factories.js';

type Terminator = Record<string, unknown> & { id: string };

describe('terminators', () => {
  let t: TestApp;
  let token: string;
  let serviceId: string;
  let routerId: string;
  const base = '/edge/management/v1/terminators';
  const get = async (id: string) => {
    const result = await t.call({ method: 'GET', url: `${base}/${id}`, token });
    assert.equal(result.status, 200, result.text);
    return (result.body as { data: Terminator }).data;
  };
  before(async () => {
    t = await buildTestApp();
    token = await t.loginAsAdmin();
    serviceId = await createService(t, token, { name: 'echo' });
    routerId = await createEdgeRouter(t, token, { name: 'er-1' });
  });
  after(() => t.close());

  describe('createTerminator', () => {
    it('creates with references, defaults and no secret in the response', async () => {
      const id = await createTerminator(t, token, serviceId, routerId, {
        address: 'tcp:localhost:8080',
        identity: 'host-1',
        identitySecret: 'c2VjcmV0',
      });
      const terminator = await get(id);
      assert.equal(terminator.serviceId, serviceId);
      assert.equal((terminator.service as { name: string; entity: string }).name, 'echo');
      assert.equal((terminator.service as { entity: string }).entity, 'services');
      assert.equal(terminator.routerId, routerId);
      assert.deepEqual((terminator.router as { _links: unknown; entity: string }).entity, 'transit-routers');
      assert.deepEqual(
        [
          terminator.binding,
          terminator.address,
          terminator.identity,
          terminator.cost,
          terminator.precedence,
          terminator.dynamicCost,
        ],
        ['transport', 'tcp:localhost:8080', 'host-1', 0, 'default', 0],
      );
      const raw = await t.call({ method: 'GET', url: `${base}/${id}`, token });
      assert.doesNotMatch(raw.text, /c2VjcmV0|identitySecret|hostId/);
    });

    it('derives an empty binding from the address', async () => {
      const udp = await createTerminator(t, token, serviceId, routerId, { binding: '', address: 'udp:10.0.0.1:53' });
      assert.equal((await get(udp)).binding, 'udp');
      const tcp = await createTerminator(t, token, serviceId, routerId, { binding: '', address: 'tcp:10.0.0.1:80' });
      assert.equal((await get(tcp)).binding, 'transport');
    });

    it('accepts transit routers too', async () => {
      const transit = await createTransitRouter(t, token);
      const id = await createTerminator(t, token, serviceId, transit, { address: 'tcp:x:1' });
      assert.equal((await get(id)).routerId, transit);
    });

    it('refuses missing references, an empty address, cost out of range, a bad precedence and bad secrets', async () => {
      const post = (body: Record<string, unknown>) =>
        t.call({
          method: 'POST',
          url: base,
          token,
          payload: { service: serviceId, router: routerId, binding: 'transport', address: 'tcp:x:1', ...body },
        });
      assertError(await post({ service: 'nope' }), 400, 'COULD_NOT_VALIDATE', 'service');
      assertError(await post({ router: 'nope' }), 400, 'COULD_NOT_VALIDATE', 'router');
      // Both missing: the service is refused first, as upstream checks it first.
      assertError(await post({ service: 'nope', router: 'nope' }), 400, 'COULD_NOT_VALIDATE', 'service');
      assertError(await post({ address: '' }), 400, 'COULD_NOT_VALIDATE', 'address');
      assertError(await post({ cost: 65536 }), 400, 'COULD_NOT_VALIDATE', 'cost');
      assertError(await post({ cost: -1 }), 400, 'COULD_NOT_VALIDATE', 'cost');
      assertError(await post({ precedence: 'urgent' }), 400, 'COULD_NOT_VALIDATE', 'precedence');
      assertError(await post({ address: undefined }), 400, 'COULD_NOT_VALIDATE', 'address');
      const badSecret = await post({ identitySecret: 'not base64!' });
      assert.equal(badSecret.status, 400);
    });
  });

  describe('updateTerminator and patchTerminator', () => {
    it('PUT rewrites the mutable fields but never the service; PATCH only what is present', async () => {
      const other = await createService(t, token);
      const secondRouter = await createEdgeRouter(t, token);
      const id = await createTerminator(t, token, serviceId, routerId, {
        address: 'tcp:a:1',
        cost: 5,
        precedence: 'required',
      });
      const put = await t.call({
        method: 'PUT',
        url: `${base}/${id}`,
        token,
        payload: { service: other, router: secondRouter, binding: 'edge', address: 'tcp:b:2' },
      });
      assert.equal(put.status, 200, put.text);
      let terminator = await get(id);
      assert.deepEqual(
        [
          terminator.serviceId,
          terminator.routerId,
          terminator.binding,
          terminator.address,
          terminator.cost,
          terminator.precedence,
        ],
        [serviceId, secondRouter, 'edge', 'tcp:b:2', 0, 'default'],
      );
      assert.equal(
        (await t.call({ method: 'PATCH', url: `${base}/${id}`, token, payload: { cost: 7, precedence: 'failed' } }))
          .status,
        200,
      );
      terminator = await get(id);
      assert.deepEqual(
        [terminator.address, terminator.cost, terminator.precedence, terminator.routerId],
        ['tcp:b:2', 7, 'failed', secondRouter],
      );
      assertError(
        await t.call({ method: 'PATCH', url: `${base}/${id}`, token, payload: { router: 'nope' } }),
        400,
        'COULD_NOT_VALIDATE',
        'router',
      );
      assertError(
        await t.call({ method: 'PATCH', url: `${base}/missing`, token, payload: { cost: 1 } }),
        404,
        'NOT_FOUND',
      );
    });
  });

  describe('listing', () => {
    it('filters by service, router, binding, address and the related names', async () => {
      const svc = await createService(t, token, { name: 'listing-svc' });
      const router = await createEdgeRouter(t, token, { name: 'listing-router' });
      const id = await createTerminator(t, token, svc, router, { address: 'tcp:list:9' });
      const list = async (filter: string) => {
        const result = await t.call({ method: 'GET', url: `${base}?filter=${encodeURIComponent(filter)}`, token });
        assert.equal(result.status, 200, result.text);
        return result.body as { data: Terminator[]; meta: { filterableFields: string[] } };
      };
      for (const filter of [
        `service = "${svc}"`,
        `router = "${router}"`,
        'service.name = "listing-svc"',
        'router.name = "listing-router" and address = "tcp:list:9"',
        'service.name contains "listing" sort by router.name',
      ]) {
        assert.deepEqual(
          (await list(filter)).data.map((x) => x.id),
          [id],
          filter,
        );
      }
      const fields = (await list('true')).meta.filterableFields;
      for (const field of [
        'service',
        'router',
        'binding',
        'address',
        'instanceId',
        'hostId',
        'service.name',
        'router.name',
      ])
        assert.ok(fields.includes(field), field);
      for (const field of ['cost', 'precedence']) {
        assert.ok(!fields.includes(field), field);
        assertError(
          await t.call({ method: 'GET', url: `${base}?filter=${encodeURIComponent(`${field} = 0`)}`, token }),
          400,
          'INVALID_FILTER',
        );
      }
    });

    it("lists a service's terminators; 404 for a missing service", async () => {
      const svc = await createService(t, token);
      const ids = [
        await createTerminator(t, token, svc, routerId, { address: 'tcp:s:1' }),
        await createTerminator(t, token, svc, routerId, { address: 'tcp:s:2' }),
      ].sort();
      const result = await t.call({ method: 'GET', url: `/edge/management/v1/services/${svc}/terminators`, token });
      assert.deepEqual((result.body as { data: Terminator[] }).data.map((x) => x.id).sort(), ids);
      assertError(
        await t.call({ method: 'GET', url: '/edge/management/v1/services/missing/terminators', token }),
        404,
        'NOT_FOUND',
      );
    });
  });

  describe('deleteTerminator and cascades', () => {
    it('deletes, and goes with its service or router', async () => {
      const svc = await createService(t, token);
      const router = await createEdgeRouter(t, token);
      const a = await createTerminator(t, token, svc, routerId, { address: 'tcp:d:1' });
      const b = await createTerminator(t, token, serviceId, router, { address: 'tcp:d:2' });
      const c = await createTerminator(t, token, serviceId, routerId, { address: 'tcp:d:3' });
      assert.equal((await t.call({ method: 'DELETE', url: `${base}/${c}`, token })).status, 200);
      assertError(await t.call({ method: 'DELETE', url: `${base}/${c}`, token }), 404, 'NOT_FOUND');
      assert.equal((await t.call({ method: 'DELETE', url: `/edge/management/v1/services/${svc}`, token })).status, 200);
      assertError(await t.call({ method: 'GET', url: `${base}/${a}`, token }), 404, 'NOT_FOUND');
      assert.equal(
        (await t.call({ method: 'DELETE', url: `/edge/management/v1/edge-routers/${router}`, token })).status,
        200,
      );
      assertError(await t.call({ method: 'GET', url: `${base}/${b}`, token }), 404, 'NOT_FOUND');
    });
  });
});
