// Path selection as upstream v1.1.8's controller/network/network_path.go shortestPath: Dijkstra over the connected
// routers, where stepping onto a router costs the least expensive usable link to it plus max(router cost,
// minRouterCost), the source router never pays, and a no-traversal router may only start or end a path. Links are
// undirected for routing. Pure: callers pass a snapshot of the network.
import { mustAt, mustGet } from '../../lib/collections.js';

/** upstream DefaultOptionsMinRouterCost. */
export const MIN_ROUTER_COST = 10;
/** upstream newPathAndCost caps a path's cost before adding it to a terminator's cost. */
export const MAX_PATH_COST = 1 << 20;
const UNREACHABLE = 2 ** 31 - 1; // math.MaxInt32, upstream's initial distance

export interface PathRouter {
  id: string;
  /** The fabric router's cost (0–65535). */
  cost: number;
  noTraversal: boolean;
}

export interface PathLink {
  id: string;
  srcRouterId: string;
  dstRouterId: string;
  /** staticCost + srcLatency/1e6 + dstLatency/1e6 (link-model.ts linkCost). */
  cost: number;
  /** Connected and not administratively down. */
  usable: boolean;
}

export interface NetworkSnapshot {
  /** The connected routers; links to any other router are not used. */
  routers: ReadonlyMap<string, PathRouter>;
  links: Iterable<PathLink>;
  minRouterCost?: number;
}

export interface Path {
  /** Routers in path order, source first. */
  routerIds: string[];
  /** linkIds[i] joins routerIds[i] and routerIds[i + 1]. */
  linkIds: string[];
  cost: number;
}

/** The least expensive usable link between each pair of connected routers, in both directions. */
function cheapestLinks(snapshot: NetworkSnapshot): Map<string, Map<string, PathLink>> {
  const byRouter = new Map<string, Map<string, PathLink>>();
  const put = (from: string, to: string, link: PathLink) => {
    let neighbours = byRouter.get(from);
    if (!neighbours) byRouter.set(from, (neighbours = new Map<string, PathLink>()));
    const current = neighbours.get(to);
    // Equal costs: the smaller id, so a choice is the same on every instance (upstream takes map order).
    if (!current || link.cost < current.cost || (link.cost === current.cost && link.id < current.id))
      neighbours.set(to, link);
  };
  for (const link of snapshot.links) {
    if (!link.usable || link.srcRouterId === link.dstRouterId) continue;
    if (!snapshot.routers.has(link.srcRouterId) || !snapshot.routers.has(link.dstRouterId)) continue;
    put(link.srcRouterId, link.dstRouterId, link);
    put(link.dstRouterId, link.srcRouterId, link);
  }
  return byRouter;
}

/** The cheapest path from `sourceId` to `destId`, or undefined when there is none (upstream "can't route"). */
export function shortestPath(snapshot: NetworkSnapshot, sourceId: string, destId: string): Path | undefined {
  const { routers } = snapshot;
  if (!routers.has(sourceId) || !routers.has(destId)) return undefined;
  if (sourceId === destId) return { routerIds: [sourceId], linkIds: [], cost: 0 };
  const minRouterCost = snapshot.minRouterCost ?? MIN_ROUTER_COST;
  const links = cheapestLinks(snapshot);
  const dist = new Map<string, number>([[sourceId, 0]]);
  const prev = new Map<string, string>();
  const visited = new Set<string>();
  // A binary heap with lazy deletion instead of upstream's linear minimum search: the same order (distance, then id
  // for ties), O((routers + links) log routers) per path, so a thousand routers stay well under a millisecond.
  const queue = new MinQueue();
  queue.push(0, sourceId);
  for (let next = queue.pop(); next; next = queue.pop()) {
    const [d, u] = next;
    if (visited.has(u) || d !== dist.get(u)) continue;
    if (u === destId) break;
    visited.add(u);
    for (const [r, link] of links.get(u) ?? []) {
      if (visited.has(r)) continue;
      const router = mustGet(routers, r);
      if (router.noTraversal && r !== sourceId && r !== destId) continue;
      const alt = d + link.cost + Math.max(router.cost, minRouterCost);
      if (alt < (dist.get(r) ?? UNREACHABLE)) {
        dist.set(r, alt);
        prev.set(r, u);
        queue.push(alt, r);
      }
    }
  }
  if (!prev.has(destId)) return undefined;
  const routerIds = [destId];
  for (let p = prev.get(destId); p !== undefined; p = prev.get(p)) routerIds.unshift(p);
  // Each step of the chain was reached over a link from the router before it, at the distance recorded.
  const linkIds = routerIds.slice(1).map((id, i) => mustGet(mustGet(links, mustAt(routerIds, i)), id).id);
  return { routerIds, linkIds, cost: mustGet(dist, destId) };
}

/** The paths from a router when no link is looked at: to itself only (upstream's one-router path, cost 0). */
export const oneRouterPaths =
  (sourceRouterId: string) =>
  (destRouterId: string): Path | undefined =>
    destRouterId === sourceRouterId ? { routerIds: [sourceRouterId], linkIds: [], cost: 0 } : undefined;

/** The path cost a terminator's route cost adds (upstream newPathAndCost). */
export const pathCostForTerminator = (path: Path): number => Math.min(path.cost, MAX_PATH_COST);

/** Entries ordered by distance, then router id. */
class MinQueue {
  readonly #heap: Array<[number, string]> = [];

  push(distance: number, id: string): void {
    const heap = this.#heap;
    heap.push([distance, id]);
    for (let i = heap.length - 1; i > 0;) {
      const parent = (i - 1) >> 1;
      if (!before(this.#at(i), this.#at(parent))) break;
      this.#swap(i, parent);
      i = parent;
    }
  }

  /** An entry at an index inside the heap. */
  #at(index: number): [number, string] {
    return mustAt(this.#heap, index);
  }

  #swap(i: number, j: number): void {
    const entry = this.#at(i);
    this.#heap[i] = this.#at(j);
    this.#heap[j] = entry;
  }

  pop(): [number, string] | undefined {
    const heap = this.#heap;
    const top = heap[0];
    const last = heap.pop();
    if (heap.length > 0 && last) {
      heap[0] = last;
      for (let i = 0; ;) {
        const [l, r] = [2 * i + 1, 2 * i + 2];
        let least = i;
        if (l < heap.length && before(this.#at(l), this.#at(least))) least = l;
        if (r < heap.length && before(this.#at(r), this.#at(least))) least = r;
        if (least === i) break;
        this.#swap(i, least);
        i = least;
      }
    }
    return top;
  }
}

const before = (a: [number, string], b: [number, string]): boolean => a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);
