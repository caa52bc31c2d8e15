// Smart rerouting's choice (upstream smart.go getRerouteCandidates): which circuits move, in which order, how many.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { NetworkSnapshot, PathLink } from '../links/paths.js';
import type { RoutedCircuit } from './reroute.js';
import { DEFAULT_SMART_REROUTE, pathCost, rerouteCandidates, rerouteCeiling } from './smart-reroute.js';

const link = (id: string, srcRouterId: string, dstRouterId: string, cost: number): PathLink => ({
  id,
  srcRouterId,
  dstRouterId,
  cost,
  usable: true,
});

/** A square a–b–d, a–c–d, and a direct a–d; routers cost 0 (so 10, the minimum, each). */
function square(costs: { ab: number; bd: number; ac: number; cd: number; ad: number }): NetworkSnapshot {
  return {
    routers: new Map(['a', 'b', 'c', 'd'].map((id) => [id, { id, cost: 0, noTraversal: false }])),
    links: [
      link('ab', 'a', 'b', costs.ab),
      link('bd', 'b', 'd', costs.bd),
      link('ac', 'a', 'c', costs.ac),
      link('cd', 'c', 'd', costs.cd),
      link('ad', 'a', 'd', costs.ad),
    ],
  };
}

const circuit = (id: string, routerIds: string[], linkIds: string[]): RoutedCircuit => ({
  id,
  ingressId: `i-${id}`,
  egressId: `e-${id}`,
  path: { routerIds, linkIds },
  terminator: { binding: 'edge', address: 't' },
  tags: {},
});

describe('smart rerouting candidates', () => {
  it('a path costs its links and every router at least the minimum router cost, the first one too', () => {
    const snapshot = { ...square({ ab: 5, bd: 7, ac: 1, cd: 1, ad: 100 }), minRouterCost: 12 };
    assert.equal(pathCost(snapshot, { routerIds: ['a', 'b', 'd'], linkIds: ['ab', 'bd'] }), 5 + 7 + 3 * 12);
    assert.equal(pathCost(snapshot, { routerIds: ['a', 'x'], linkIds: ['ax'] }), undefined, 'a link gone');
  });

  it('moves a circuit whose path a new one beats by the minimum delta; not one beaten by less', () => {
    const snapshot = square({ ab: 5, bd: 500, ac: 5, cd: 5, ad: 1000 });
    const costly = circuit('c1', ['a', 'b', 'd'], ['ab', 'bd']);
    const [candidate, ...rest] = rerouteCandidates([costly], snapshot, DEFAULT_SMART_REROUTE);
    assert.deepEqual(rest, []);
    assert.deepEqual(candidate?.path.linkIds, ['ac', 'cd']);
    assert.deepEqual([candidate?.oldCost, candidate?.newCost], [535, 40]);

    // 5 + 19 + 30 against 40: 14 cheaper, under the delta of 15.
    const close = square({ ab: 5, bd: 19, ac: 5, cd: 5, ad: 1000 });
    assert.deepEqual(rerouteCandidates([costly], close, DEFAULT_SMART_REROUTE), []);
    assert.equal(rerouteCandidates([costly], close, { ...DEFAULT_SMART_REROUTE, minCostDelta: 14 }).length, 1);
  });

  it('leaves a circuit already on its best path, or one whose link is gone (moved by the loss instead)', () => {
    const snapshot = square({ ab: 5, bd: 5, ac: 50, cd: 50, ad: 1000 });
    const best = circuit('c1', ['a', 'b', 'd'], ['ab', 'bd']);
    const orphan = circuit('c2', ['a', 'x', 'd'], ['ax', 'xd']);
    assert.deepEqual(rerouteCandidates([best, orphan], snapshot, DEFAULT_SMART_REROUTE), []);
  });

  it('takes the costliest first, at most the fraction of circuits (at least one) and the cap', () => {
    const snapshot = square({ ab: 5, bd: 500, ac: 5, cd: 5, ad: 300 });
    const viaB = (id: string) => circuit(id, ['a', 'b', 'd'], ['ab', 'bd']);
    const direct = (id: string) => circuit(id, ['a', 'd'], ['ad']);
    const circuits = [direct('d1'), viaB('b1'), direct('d2'), viaB('b2')];
    const one = rerouteCandidates(circuits, snapshot, DEFAULT_SMART_REROUTE);
    assert.deepEqual(
      one.map((c) => c.circuit.id),
      ['b1'],
      '2% of 4 is less than one: one, the costliest',
    );
    const half = rerouteCandidates(circuits, snapshot, { ...DEFAULT_SMART_REROUTE, rerouteFraction: 0.75 });
    assert.deepEqual(
      half.map((c) => c.circuit.id),
      ['b1', 'b2', 'd1'],
    );
    assert.deepEqual([rerouteCeiling(1000, DEFAULT_SMART_REROUTE), rerouteCeiling(100, DEFAULT_SMART_REROUTE)], [4, 2]);
    assert.equal(rerouteCeiling(10, { ...DEFAULT_SMART_REROUTE, rerouteCap: 0 }), 0, 'a cap of 0 moves none');
  });
});
