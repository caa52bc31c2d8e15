// Circuits kept on the best path over time: upstream v1.1.8's smart rerouting (controller/network/smart.go, run every
// `network.cycleSeconds`). The costliest circuits first, each whose path a new shortest one now beats by at least
// `smart.minCostDelta` is moved to it, at most a `smart.rerouteFraction` of the circuits (at least one) and
// `smart.rerouteCap` a cycle. A move re-sends the routes of the new path router by router (the re-route attempt);
// when a router does not answer, the circuit is re-routed afresh up to twice (upstream rerouteCircuitWithTries), and
// removed when that fails too.
import type { NetworkSnapshot, Path } from '../links/paths.js';
import { MIN_ROUTER_COST, shortestPath } from '../links/paths.js';
import { mustAt } from '../../lib/collections.js';
import type { RoutedCircuit } from './reroute.js';

export interface SmartRerouteOptions {
  /** How often the cycle runs (`network.cycleSeconds`). */
  cycleMs: number;
  /** The share of circuits a cycle may move (`network.smart.rerouteFraction`). */
  rerouteFraction: number;
  /** The most circuits a cycle moves (`network.smart.rerouteCap`). */
  rerouteCap: number;
  /** How much cheaper the new path must be (`network.smart.minCostDelta`). */
  minCostDelta: number;
}

/** upstream's defaults (config_network.go). */
export const DEFAULT_SMART_REROUTE: SmartRerouteOptions = {
  cycleMs: 60_000,
  rerouteFraction: 0.02,
  rerouteCap: 4,
  minCostDelta: 15,
};

export interface RerouteCandidate<C extends RoutedCircuit> {
  circuit: C;
  path: Path;
  oldCost: number;
  newCost: number;
}

/**
 * upstream Path.Cost: every link's current cost and every router's cost, at least the minimum router cost (the
 * first router too, unlike a shortest path's distance). Undefined when a router or link of it is no longer in the
 * network: such a circuit is moved by the loss of its link (circuit-moves.ts), not here.
 */
export function pathCost(snapshot: NetworkSnapshot, path: Pick<Path, 'routerIds' | 'linkIds'>): number | undefined {
  return costOf(snapshot, linkCosts(snapshot), path);
}

const linkCosts = (snapshot: NetworkSnapshot): Map<string, number> =>
  new Map([...snapshot.links].map((link) => [link.id, link.cost]));

function costOf(
  snapshot: NetworkSnapshot,
  links: ReadonlyMap<string, number>,
  path: Pick<Path, 'routerIds' | 'linkIds'>,
): number | undefined {
  const minRouterCost = snapshot.minRouterCost ?? MIN_ROUTER_COST;
  let cost = 0;
  for (const id of path.linkIds) {
    const linkCost = links.get(id);
    if (linkCost === undefined) return undefined;
    cost += linkCost;
  }
  for (const id of path.routerIds) {
    const router = snapshot.routers.get(id);
    if (!router) return undefined;
    cost += Math.max(router.cost, minRouterCost);
  }
  return cost;
}

const samePath = (a: Pick<Path, 'routerIds' | 'linkIds'>, b: Pick<Path, 'routerIds' | 'linkIds'>): boolean =>
  a.routerIds.length === b.routerIds.length &&
  a.linkIds.length === b.linkIds.length &&
  a.routerIds.every((id, i) => id === b.routerIds[i]) &&
  a.linkIds.every((id, i) => id === b.linkIds[i]);

/** How many circuits one cycle may move (upstream: the fraction, at least one, at most the cap). */
export function rerouteCeiling(circuitCount: number, options: SmartRerouteOptions): number {
  const ceiling = Math.max(1, Math.trunc(circuitCount * options.rerouteFraction));
  return Math.min(ceiling, options.rerouteCap);
}

/** upstream getRerouteCandidates: the circuits to move this cycle and their new paths, costliest first. */
export function rerouteCandidates<C extends RoutedCircuit>(
  circuits: readonly C[],
  snapshot: NetworkSnapshot,
  options: SmartRerouteOptions,
): RerouteCandidate<C>[] {
  const links = linkCosts(snapshot);
  const costed = circuits
    .map((circuit) => ({ circuit, cost: costOf(snapshot, links, circuit.path) }))
    .filter((entry): entry is { circuit: C; cost: number } => entry.cost !== undefined);
  // Stable, decreasing cost (upstream sort.SliceStable).
  costed.sort((a, b) => b.cost - a.cost);
  const ceiling = rerouteCeiling(circuits.length, options);
  // One snapshot, so one shortest path per pair of end routers however many circuits share them (upstream looks
  // for each circuit's).
  const paths = new Map<string, Path | undefined>();
  const shortest = (source: string, dest: string): Path | undefined => {
    const key = `${source}\n${dest}`;
    if (!paths.has(key)) paths.set(key, shortestPath(snapshot, source, dest));
    return paths.get(key);
  };
  const candidates: RerouteCandidate<C>[] = [];
  for (const { circuit, cost: oldCost } of costed) {
    if (candidates.length >= ceiling) break;
    const { routerIds } = circuit.path;
    const path = shortest(mustAt(routerIds, 0), mustAt(routerIds, -1));
    if (!path || samePath(path, circuit.path)) continue;
    const newCost = costOf(snapshot, links, path);
    if (newCost === undefined || oldCost - newCost < options.minCostDelta) continue;
    candidates.push({ circuit, path, oldCost, newCost });
  }
  return candidates;
}
