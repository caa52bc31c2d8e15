// `/fabric/v1` links and circuits: read through deps.network (the control plane's NetworkViews), filtered, sorted and
// paged with the filter language, shown as upstream shows them; deleting a circuit.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../../support/test-app.js';
import { assertError } from '../../support/conformance.js';
import { createEdgeRouter, createService, createTerminator, createTransitRouter } from '../../support/factories.js';
import type { CircuitSummary, LinkSummary, NetworkViews } from '../../../src/fabric/network-views.js';

type Entity = Record<string, unknown> & { id: string };
type ListBody = { data: Entity[]; meta: Record<string, unknown> };

/** A network as the control plane would hold it, recording removals. */
function fakeNetwork(
  links: LinkSummary[],
  circuits: CircuitSummary[],
): NetworkViews & { removed: [string, boolean][]; updated: [string, object][] } {
  const removed: [string, boolean][] = [];
  const updated: [string, object][] = [];
  return {
    removed,
    updated,
    links: {
      list: () => Promise.resolve(links),
      get: (id) => Promise.resolve(links.find((l) => l.id === id)),
      update(id, change) {
        if (!links.some((l) => l.id === id)) return Promise.resolve(false);
        updated.push([id, change]);
        return Promise.resolve(true);
      },
    },
    circuits: {
      list: () => Promise.resolve(circuits),
      get: (id) => Promise.resolve(circuits.find((c) => c.id === id)),
      remove(id, immediate) {
        const index = circuits.findIndex((c) => c.id === id);
        if (index < 0) return Promise.resolve(false);
        circuits.splice(index, 1);
        removed.push([id, immediate]);
        return Promise.resolve(true);
      },
    },
  };
}

describe('fabric API: links and circuits', () => {
  let t: TestApp;
  let token: string;
  let network: ReturnType<typeof fakeNetwork>;
  let first: string;
  let middle: string;
  let last: string;
  let serviceId: string;
  const base = '/fabric/v1';
  const list = async (path: string, query = '') => {
    const result = await t.call({ method: 'GET', url: `${base}/${path}${query}`, token });
    assert.equal(result.status, 200, result.text);
    return result.body as ListBody;
  };

  before(async () => {
    t = await buildTestApp();
    token = await t.loginAsAdmin();
    first = await createEdgeRouter(t, token, { name: 'r-first' });
    middle = await createTransitRouter(t, token, { name: 'r-middle' });
    last = await createEdgeRouter(t, token, { name: 'r-last' });
    serviceId = await createService(t, token, { name: 'net-svc' });
    const terminator = await createTerminator(t, token, serviceId, last, { binding: 'edge', address: 'hosted:x' });
    const link = (id: string, source: string, dest: string, cost: number): LinkSummary => ({
      id,
      protocol: 'tls',
      dialAddress: `tls:${dest}:4000`,
      sourceRouterId: source,
      destRouterId: dest,
      state: 'Connected',
      down: false,
      staticCost: 1,
      sourceLatency: 1_500_000,
      destLatency: 2_000_000,
      cost,
      iteration: 1,
    });
    const at = (minutes: number) => new Date(Date.UTC(2026, 0, 1, 0, minutes));
    network = fakeNetwork(
      [link('link-a', first, middle, 3), link('link-b', middle, last, 5)],
      [
        {
          id: 'c-two-hops',
          clientId: 'client-1',
          serviceId,
          terminatorId: terminator,
          createdAt: at(1),
          updatedAt: at(2),
          tags: {},
          path: { routerIds: [first, middle, last], linkIds: ['link-a', 'link-b'] },
        },
        {
          id: 'c-local',
          clientId: '',
          serviceId,
          terminatorId: terminator,
          createdAt: at(3),
          updatedAt: at(3),
          tags: { k: 'v' },
          path: { routerIds: [last], linkIds: [] },
        },
        {
          id: 'c-orphan',
          clientId: 'client-2',
          serviceId: 'gone',
          terminatorId: 'gone-t',
          createdAt: at(5),
          updatedAt: at(5),
          tags: {},
          path: { routerIds: [], linkIds: [] },
        },
      ],
    );
  });
  after(() => t.close());

  it('lists no links or circuits while the control plane provides none', async () => {
    for (const path of ['links', 'circuits']) {
      const result = await t.call({ method: 'GET', url: `${base}/${path}`, token });
      assert.equal(result.text, '{"data":[],"meta":{"pagination":{"limit":10,"offset":0,"totalCount":0}}}\n');
    }
    assertError(await t.call({ method: 'GET', url: `${base}/circuits/c-local`, token }), 404, 'NOT_FOUND');
    assertError(await t.call({ method: 'DELETE', url: `${base}/circuits/c-local`, token }), 404, 'NOT_FOUND');
  });

  describe('with a network', () => {
    before(() => {
      t.deps.network = network;
    });

    it('lists links with router references and upstream fields', async () => {
      const { data, meta } = await list('links', '?sort=cost desc');
      assert.deepEqual(meta, { pagination: { limit: 10, offset: 0, totalCount: 2 } });
      assert.deepEqual(
        data.map((l) => l.id),
        ['link-b', 'link-a'],
      );
      const [b] = data as [Entity];
      assert.deepEqual(Object.keys(b), [
        'cost',
        'destLatency',
        'destRouter',
        'down',
        'id',
        'iteration',
        'protocol',
        'sourceLatency',
        'sourceRouter',
        'state',
        'staticCost',
      ]);
      assert.deepEqual(b.sourceRouter, {
        _links: { self: { href: `./routers/${middle}` }, terminators: { href: `./routers/${middle}/terminators` } },
        entity: 'routers',
        id: middle,
        name: 'r-middle',
      });
      assert.deepEqual([b.state, b.down, b.destLatency], ['Connected', false, 2_000_000]);
    });

    it('filters links by upstream symbols and pages them', async () => {
      assert.deepEqual(
        (await list('links', `?filter=sourceRouter = "${first}"`)).data.map((l) => l.id),
        ['link-a'],
      );
      assert.deepEqual(
        (await list('links', '?filter=cost > 4 and state = "Connected"')).data.map((l) => l.id),
        ['link-b'],
      );
      const page = await list('links', '?sort=id&limit=1&offset=1');
      assert.deepEqual(
        [page.data.map((l) => l.id), page.meta.pagination],
        [['link-b'], { limit: 1, offset: 1, totalCount: 2 }],
      );
      const unknown = await t.call({ method: 'GET', url: `${base}/links?filter=name = "x"`, token });
      assertError(unknown, 400, 'INVALID_FILTER');
      // Worded as upstream's in-memory stores word it (no quotes).
      assert.equal(
        (unknown.body as { error: { cause: { message: string } } }).error.cause.message,
        'unknown symbol name',
      );
    });

    it('shows one link, and 404 for an unknown one', async () => {
      const result = await t.call({ method: 'GET', url: `${base}/links/link-a`, token });
      assert.equal((result.body as { data: Entity }).data.id, 'link-a');
      assert.deepEqual((result.body as { meta: unknown }).meta, {});
      assertError(await t.call({ method: 'GET', url: `${base}/links/nope`, token }), 404, 'NOT_FOUND');
    });

    it('lists circuits with their paths over routers and links', async () => {
      const { data } = await list('circuits', '?sort=createdAt');
      assert.deepEqual(
        data.map((c) => c.id),
        ['c-two-hops', 'c-local', 'c-orphan'],
      );
      const [twoHops, local, orphan] = data as [Entity, Entity, Entity];
      assert.equal(twoHops.clientId, 'client-1');
      assert.deepEqual(
        (twoHops.path as { nodes: Entity[] }).nodes.map((n) => n.name),
        ['r-first', 'r-middle', 'r-last'],
      );
      assert.deepEqual((twoHops.path as { links: Entity[] }).links, [
        { _links: { self: { href: './links/link-a' } }, entity: 'links', id: 'link-a', name: 'link-a' },
        { _links: { self: { href: './links/link-b' } }, entity: 'links', id: 'link-b', name: 'link-b' },
      ]);
      assert.deepEqual(twoHops._links, {
        self: { href: './circuits/c-two-hops' },
        service: { href: './circuits/c-two-hops/service' },
        terminator: { href: './circuits/c-two-hops/terminator' },
      });
      assert.deepEqual(
        [twoHops.createdAt, twoHops.updatedAt],
        ['2026-01-01T00:01:00.000Z', '2026-01-01T00:02:00.000Z'],
      );
      assert.deepEqual((twoHops.service as Entity).name, 'net-svc');
      assert.ok(!('clientId' in local), 'an empty clientId is left out (omitempty)');
      assert.deepEqual(local.path, {
        links: null,
        nodes: [
          {
            _links: { self: { href: `./routers/${last}` }, terminators: { href: `./routers/${last}/terminators` } },
            entity: 'routers',
            id: last,
            name: 'r-last',
          },
        ],
      });
      assert.deepEqual(local.tags, { k: 'v' });
      assert.deepEqual(orphan.path, { links: null, nodes: null });
      assert.deepEqual(orphan.service, {
        _links: { self: { href: './services/gone' }, terminators: { href: './services/gone/terminators' } },
        entity: 'services',
        id: 'gone',
        name: '<deleted>',
      });
      assert.deepEqual(orphan.terminator, {
        _links: { self: { href: './terminators/gone-t' } },
        entity: 'terminators',
        id: 'gone-t',
        name: 'gone-t',
      });
    });

    it('filters circuits by upstream symbols', async () => {
      assert.deepEqual(
        (await list('circuits', `?filter=service = "${serviceId}" and clientId != ""&sort=id`)).data.map((c) => c.id),
        ['c-two-hops'],
      );
      assert.deepEqual(
        (await list('circuits', '?filter=createdAt >= datetime(2026-01-01T00:03:00Z)&sort=id')).data.map((c) => c.id),
        ['c-local', 'c-orphan'],
      );
    });

    it('filters and pages more circuits than one SQL compound statement may hold', async () => {
      const many: CircuitSummary[] = Array.from({ length: 1200 }, (_, i) => ({
        id: `bulk-${String(i).padStart(4, '0')}`,
        clientId: `client-${i % 3}`,
        serviceId,
        terminatorId: 't',
        createdAt: new Date(Date.UTC(2026, 1, 1, 0, 0, i)),
        updatedAt: new Date(Date.UTC(2026, 1, 1)),
        tags: {},
        path: { routerIds: [], linkIds: [] },
      }));
      t.deps.network = fakeNetwork([], many);
      try {
        const page = await list('circuits', '?filter=clientId = "client-2"&sort=createdAt desc&limit=2&offset=1');
        assert.deepEqual(
          page.data.map((c) => c.id),
          ['bulk-1196', 'bulk-1193'],
        );
        assert.deepEqual(page.meta.pagination, { limit: 2, offset: 1, totalCount: 400 });
      } finally {
        t.deps.network = network;
      }
    });

    it('updates a link’s static cost and down flag (ziti fabric update link), 404 for an unknown one', async () => {
      const patch = (id: string, payload: unknown) =>
        t.call({ method: 'PATCH', url: `${base}/links/${id}`, token, payload });
      const result = await patch('link-a', { staticCost: 40 });
      assert.equal(result.text, '{"data":{},"meta":{}}\n');
      assert.equal((await patch('link-a', { down: true, staticCost: null })).status, 200);
      assert.deepEqual(network.updated, [
        ['link-a', { staticCost: 40 }],
        ['link-a', { staticCost: 0, down: true }],
      ]);
      assertError(await patch('link-nope', { down: true }), 404, 'NOT_FOUND');
      assertError(await patch('link-a', { staticCost: -1 }), 400, 'COULD_NOT_VALIDATE');
      assert.equal(network.updated.length, 2);
    });

    it('deletes a circuit through the network, passing immediate, and 404 once it is gone', async () => {
      const result = await t.call({
        method: 'DELETE',
        url: `${base}/circuits/c-local`,
        token,
        payload: { immediate: true },
      });
      assert.equal(result.text, '{"data":{},"meta":{}}\n');
      const graceful = await t.call({ method: 'DELETE', url: `${base}/circuits/c-orphan`, token });
      assert.equal(graceful.status, 200, graceful.text);
      assert.deepEqual(network.removed, [
        ['c-local', true],
        ['c-orphan', false],
      ]);
      assertError(await t.call({ method: 'DELETE', url: `${base}/circuits/c-local`, token }), 404, 'NOT_FOUND');
      assertError(
        await t.call({ method: 'DELETE', url: `${base}/circuits/c-two-hops`, token, payload: { immediate: 'yes' } }),
        400,
        'COULD_NOT_PARSE_BODY',
      );
      assert.deepEqual(
        (await list('circuits')).data.map((c) => c.id),
        ['c-two-hops'],
      );
    });
  });
});
