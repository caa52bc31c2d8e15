// Moving circuits off a link that went away, as upstream v1.1.8 Network.rerouteLink / rerouteCircuit: each circuit
// over the link gets a new shortest path between its same first and last routers, and every router of the new path a
// Route with the re-route attempt (no egress: the last router keeps its xgress), one after another, errors only
// logged. A circuit with no path left (its first or last router gone, no other links) is torn down: Unroute (now) to
// every router of its old path.
import type { Message } from '../channel/message.js';
import type { FabricLogger } from '../ctrl/router-channel.js';
import { unrouteAt } from './circuit-messages.js';
import type { Link } from '../links/link-model.js';
import type { Path } from '../links/paths.js';
import { REROUTE_ATTEMPT, routePlan } from './route-plan.js';
import { mustAt } from '../../lib/collections.js';

export interface RoutedCircuit {
  id: string;
  ingressId: string;
  egressId: string;
  path: Pick<Path, 'routerIds' | 'linkIds'>;
  terminator: { binding: string; address: string };
  tags: Record<string, string>;
}

/**
 * Reaches a router's channel wherever it is held (this process, or another one:
 * docs/reference/router-control-plane-links.md §5.8). `request` resolves with the reply, rejects on timeout or when the
 * router is not connected anywhere.
 */
export interface RouteMessenger {
  request(routerId: string, message: Omit<Message, 'sequence'>, timeoutMs: number): Promise<Message>;
  send(routerId: string, message: Omit<Message, 'sequence'>): Promise<void>;
}

export interface RerouteDeps {
  path(sourceRouterId: string, destRouterId: string): Promise<Path | undefined>;
  messenger: RouteMessenger;
  routeTimeoutMs: number;
  logger: FabricLogger;
}

export type RerouteOutcome = { circuitId: string; rerouted: true; path: Path } | { circuitId: string; rerouted: false };

export const usesAnyLink = (circuit: RoutedCircuit, links: readonly Link[]): boolean =>
  links.some((link) => circuit.path.linkIds.includes(link.id));

/** One circuit onto a new path, or torn down when there is none. The caller records the new path or forgets it. */
export async function rerouteCircuit(deps: RerouteDeps, circuit: RoutedCircuit): Promise<RerouteOutcome> {
  const { routerIds } = circuit.path;
  const path = await deps.path(mustAt(routerIds, 0), mustAt(routerIds, -1));
  if (!path) {
    deps.logger.warn({ circuitId: circuit.id, oldPath: routerIds }, 'circuit has no path left: removing it');
    await unrouteAt(deps, routerIds, circuit.id, true);
    return { circuitId: circuit.id, rerouted: false };
  }
  // upstream rerouteCircuit: a router that does not answer is only logged; the circuit keeps the new path.
  await sendReroute(deps, circuit, path, 'log');
  deps.logger.info({ circuitId: circuit.id, path: path.routerIds }, 'rerouted circuit');
  return { circuitId: circuit.id, rerouted: true, path };
}

/**
 * The re-route attempt's Routes of `path`, to its routers one after another. `onError` 'stop' ends at the first
 * router that does not answer (upstream smartReroute) and answers false; 'log' goes on (upstream rerouteCircuit).
 */
export async function sendReroute(
  deps: RerouteDeps,
  circuit: RoutedCircuit,
  path: Pick<Path, 'routerIds' | 'linkIds'>,
  onError: 'stop' | 'log',
): Promise<boolean> {
  const plan = routePlan({
    circuitId: circuit.id,
    attempt: REROUTE_ATTEMPT,
    ingressId: circuit.ingressId,
    egressId: circuit.egressId,
    path,
    terminator: circuit.terminator,
    dialPeerData: new Map(),
    tags: circuit.tags,
    remainingMs: deps.routeTimeoutMs,
  });
  for (const { routerId, message } of plan) {
    try {
      await deps.messenger.request(routerId, message, deps.routeTimeoutMs);
    } catch (error) {
      deps.logger.warn(
        { circuitId: circuit.id, routerId, reason: error instanceof Error ? error.message : String(error) },
        'error sending re-route to router',
      );
      if (onError === 'stop') return false;
    }
  }
  return true;
}

/** Every circuit over any of the lost links, moved one after another (upstream rerouteLink). */
export async function rerouteCircuits(
  deps: RerouteDeps,
  circuits: Iterable<RoutedCircuit>,
  lost: readonly Link[],
): Promise<RerouteOutcome[]> {
  const outcomes: RerouteOutcome[] = [];
  for (const circuit of circuits) if (usesAnyLink(circuit, lost)) outcomes.push(await rerouteCircuit(deps, circuit));
  return outcomes;
}
