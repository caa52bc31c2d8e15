import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { fromBinary } from '@bufbuild/protobuf';
import { DestType, RouteSchema } from '../messages/gen/ctrl_pb.js';
import { pathCostForTerminator, shortestPath, type PathLink, type PathRouter } from './paths.js';
import { REROUTE_ATTEMPT, routePlan } from '../circuits/route-plan.js';

const routers = (...specs: Array<string | PathRouter>): Map<string, PathRouter> =>
  new Map(specs.map((s) => (typeof s === 'string' ? { id: s, cost: 0, noTraversal: false } : s)).map((r) => [r.id, r]));
const link = (id: string, srcRouterId: string, dstRouterId: string, cost = 1, usable = true): PathLink => ({
  id,
  srcRouterId,
  dstRouterId,
  cost,
  usable,
});

describe('shortestPath (upstream network_path.go shortestPath)', () => {
  it('one router: a path of itself at no cost', () => {
    assert.deepEqual(shortestPath({ routers: routers('a'), links: [] }, 'a', 'a'), {
      routerIds: ['a'],
      linkIds: [],
      cost: 0,
    });
  });

  it('a line: every hop pays its link and the entered router (at least minRouterCost 10); the source pays nothing', () => {
    const path = shortestPath(
      {
        routers: routers('a', { id: 'b', cost: 25, noTraversal: false }, 'c'),
        links: [link('ab', 'a', 'b', 3), link('cb', 'c', 'b', 4)],
      },
      'a',
      'c',
    );
    // a→b: 3 + max(25, 10); b→c (a link reported by c, used backwards): 4 + 10
    assert.deepEqual(path, { routerIds: ['a', 'b', 'c'], linkIds: ['ab', 'cb'], cost: 3 + 25 + 4 + 10 });
  });

  it('a triangle with unequal costs takes the cheaper two hops over the dearer direct link, and the direct one when it is cheaper', () => {
    const snapshot = (direct: number) => ({
      routers: routers('a', 'b', 'c'),
      links: [link('ab', 'a', 'b', 5), link('bc', 'b', 'c', 5), link('ac', 'a', 'c', direct)],
    });
    assert.deepEqual(shortestPath(snapshot(100), 'a', 'c'), {
      routerIds: ['a', 'b', 'c'],
      linkIds: ['ab', 'bc'],
      cost: 30,
    });
    assert.deepEqual(shortestPath(snapshot(19), 'a', 'c'), { routerIds: ['a', 'c'], linkIds: ['ac'], cost: 29 });
  });

  it('uses the least expensive usable link between two routers', () => {
    const snapshot = {
      routers: routers('a', 'b'),
      links: [link('x', 'a', 'b', 9), link('y', 'b', 'a', 2), link('z', 'a', 'b', 1, false)],
    };
    assert.deepEqual(shortestPath(snapshot, 'a', 'b')?.linkIds, ['y']);
  });

  it('no path: no usable link, a router not connected, or a no-traversal router in the middle', () => {
    assert.equal(
      shortestPath({ routers: routers('a', 'b'), links: [link('ab', 'a', 'b', 1, false)] }, 'a', 'b'),
      undefined,
    );
    assert.equal(
      shortestPath({ routers: routers('a', 'c'), links: [link('ab', 'a', 'b'), link('bc', 'b', 'c')] }, 'a', 'c'),
      undefined,
    );
    assert.equal(shortestPath({ routers: routers('a', 'b'), links: [] }, 'a', 'z'), undefined);
    const blocked = routers('a', { id: 'b', cost: 0, noTraversal: true }, 'c');
    assert.equal(
      shortestPath({ routers: blocked, links: [link('ab', 'a', 'b'), link('bc', 'b', 'c')] }, 'a', 'c'),
      undefined,
    );
    // ...but it may end or start one
    assert.deepEqual(shortestPath({ routers: blocked, links: [link('ab', 'a', 'b')] }, 'a', 'b')?.routerIds, [
      'a',
      'b',
    ]);
    assert.deepEqual(shortestPath({ routers: blocked, links: [link('ab', 'a', 'b')] }, 'b', 'a')?.routerIds, [
      'b',
      'a',
    ]);
  });

  it('a new link at upstream initial latency (65 s each way) costs 130001, and a path cost is capped at 2^20 for terminators', () => {
    const path = shortestPath({ routers: routers('a', 'b'), links: [link('ab', 'a', 'b', 130_001)] }, 'a', 'b')!;
    assert.equal(path.cost, 130_011);
    assert.equal(pathCostForTerminator({ ...path, cost: 5_000_000 }), 1 << 20);
  });
});

describe('routePlan (upstream CreateRouteMessages)', () => {
  const spec = {
    circuitId: 'c1',
    attempt: 0,
    ingressId: 'I',
    egressId: 'E',
    terminator: { binding: 'edge', address: 'T' },
    dialPeerData: new Map([[3, Uint8Array.of(7)]]),
    tags: { serviceId: 's' },
    remainingMs: 2500,
  };
  const decode = (plan: ReturnType<typeof routePlan>) =>
    plan.map(({ routerId, message }) => ({
      routerId,
      contentType: message.contentType,
      route: fromBinary(RouteSchema, message.body),
    }));
  const fw = (route: { forwards: Array<{ srcAddress: string; dstAddress: string; dstType: DestType }> }) =>
    route.forwards.map((f) => [f.srcAddress, f.dstAddress, f.dstType]);

  it('one router: ingress to egress and back, and the egress', () => {
    const [only] = decode(routePlan({ ...spec, path: { routerIds: ['a'], linkIds: [] } }));
    assert.equal(only!.contentType, 1005);
    assert.deepEqual(fw(only!.route), [
      ['I', 'E', DestType.End],
      ['E', 'I', DestType.Start],
    ]);
    assert.equal(only!.route.egress?.destination, 'T');
    assert.equal(only!.route.timeout, 2_500_000_000n);
  });

  it('three routers: ingress → link, link → link both ways, link → egress with the terminator and the dialler peer data on the last', () => {
    const plan = decode(routePlan({ ...spec, path: { routerIds: ['a', 'b', 'c'], linkIds: ['L0', 'L1'] } }));
    assert.deepEqual(
      plan.map((p) => p.routerId),
      ['a', 'b', 'c'],
    );
    assert.deepEqual(fw(plan[0]!.route), [
      ['I', 'L0', DestType.Link],
      ['L0', 'I', DestType.Start],
    ]);
    assert.deepEqual(fw(plan[1]!.route), [
      ['L0', 'L1', DestType.Link],
      ['L1', 'L0', DestType.Link],
    ]);
    assert.deepEqual(fw(plan[2]!.route), [
      ['E', 'L1', DestType.Link],
      ['L1', 'E', DestType.End],
    ]);
    assert.equal(plan[0]!.route.egress, undefined);
    assert.equal(plan[1]!.route.egress, undefined);
    assert.deepEqual(plan[2]!.route.egress, {
      $typeName: 'ziti.ctrl.pb.Route.Egress',
      binding: 'edge',
      address: 'E',
      destination: 'T',
      peerData: { 3: Uint8Array.of(7) },
    });
    for (const p of plan)
      assert.deepEqual([p.route.circuitId, p.route.attempt, p.route.tags], ['c1', 0, { serviceId: 's' }]);
  });

  it('a re-route sends no egress (the last router keeps its xgress)', () => {
    const plan = decode(
      routePlan({ ...spec, attempt: REROUTE_ATTEMPT, path: { routerIds: ['a', 'c'], linkIds: ['L'] } }),
    );
    assert.equal(plan[1]!.route.egress, undefined);
    assert.deepEqual(fw(plan[1]!.route), [
      ['E', 'L', DestType.Link],
      ['L', 'E', DestType.End],
    ]);
  });

  it('refuses a path whose links do not join its routers', () => {
    assert.throws(() => routePlan({ ...spec, path: { routerIds: ['a', 'b'], linkIds: [] } }));
  });
});
