// Circuits moved when the network under them changes (issue 24; docs/reference/router-control-plane-links.md §5.6):
// off links that went away or an operator changed (upstream Network.rerouteLink), after a router reports it cannot
// forward some (network/fault.go ForwardFault), and onto cheaper paths each network cycle (smart rerouting,
// smart-reroute.ts). A moved circuit keeps its new path (and its record says so, `pathUpdated` is reported); one
// with no path left was unrouted on its old path and is forgotten.
import { unrouteMessage } from './circuit-messages.js';
import type { CircuitDeps, CircuitLinks } from './circuit-deps.js';
import type { ControlChannel } from '../ctrl/router-channel.js';
import type { Link } from '../links/link-model.js';
import { shortestPath, type Path } from '../links/paths.js';
import { rerouteCircuit, rerouteCircuits, sendReroute, type RerouteDeps, type RerouteOutcome } from './reroute.js';
import { rerouteCandidates, type SmartRerouteOptions } from './smart-reroute.js';

/** This process's circuits over links that went away, each onto a new path or ended. */
export async function moveOffLinks(deps: CircuitDeps, links: CircuitLinks, lost: readonly Link[]): Promise<void> {
  try {
    const outcomes = await rerouteCircuits(rerouteDeps(deps, links), [...deps.registry.all()], lost);
    keep(deps, outcomes, `no path left after links ${lost.map((link) => link.id).join(', ')} went away`);
  } catch (error) {
    deps.logger.error({ err: error }, 'could not re-route circuits off lost links');
  }
}

/**
 * A router could not forward these circuits (Fault ForwardFault: a link of theirs is gone at its end). Upstream
 * (network/fault.go) re-routes each known one, removing it when that fails; an unknown one is unrouted at that
 * router, unless the owner is unknown (UnknownOwnerForwardFault) or another process owns it.
 */
export async function moveAfterForwardFault(
  deps: CircuitDeps,
  routerId: string,
  channel: ControlChannel,
  circuitIds: readonly string[],
  ownerKnown: boolean,
): Promise<void> {
  const { registry, records, links, logger } = deps;
  const known = circuitIds.map((id) => registry.get(id)).filter((circuit) => circuit !== undefined);
  const unknown = circuitIds.filter((id) => !registry.get(id));
  const elsewhere =
    ownerKnown && unknown.length > 0 && records ? await records.ownedElsewhere(unknown) : new Set<string>();
  if (ownerKnown)
    for (const circuitId of unknown) if (!elsewhere.has(circuitId)) channel.send(unrouteMessage(circuitId, true));
  if (known.length === 0) return;
  logger.info({ routerId, circuitIds: known.map((circuit) => circuit.id) }, 'forward fault: re-routing circuits');
  if (!links) {
    for (const circuit of known)
      deps.ends.remove(circuit.id, true, 'no path left', `router ${routerId} could not forward it`);
    return;
  }
  try {
    const outcomes = await Promise.all(known.map((circuit) => rerouteCircuit(rerouteDeps(deps, links), circuit)));
    keep(deps, outcomes, `no path left after router ${routerId} could not forward it`);
  } catch (error) {
    logger.error({ err: error }, 'could not re-route circuits after a forward fault');
  }
}

function rerouteDeps(deps: CircuitDeps, links: CircuitLinks): RerouteDeps {
  return {
    path: async (source: string, dest: string) => shortestPath(await links.snapshot(), source, dest),
    messenger: deps.messenger,
    routeTimeoutMs: deps.routeTimeoutMs,
    logger: deps.logger,
  };
}

function keep(deps: CircuitDeps, outcomes: readonly RerouteOutcome[], detail: string): void {
  for (const outcome of outcomes) {
    if (outcome.rerouted) moved(deps, outcome.circuitId, outcome.path);
    else deps.ends.forget(outcome.circuitId, 'no path left', detail);
  }
}

/** A circuit's new path kept, recorded and reported (upstream CircuitEvent(CircuitUpdated): `pathUpdated`). */
function moved(deps: CircuitDeps, circuitId: string, path: Path): void {
  deps.registry.setPath(circuitId, path, deps.clock().getTime());
  const circuit = deps.registry.get(circuitId);
  if (!circuit) return;
  void deps.records?.put(circuit);
  deps.logger.info({ circuitId, path: path.routerIds, links: path.linkIds }, 'circuit path updated');
  for (const listener of deps.pathUpdated) {
    try {
      listener(circuit);
    } catch (error) {
      deps.logger.warn({ circuitId, err: error }, 'a pathUpdated listener failed');
    }
  }
}

/**
 * One cycle of smart rerouting (upstream Network.smart): the candidates of smart-reroute.ts moved one after another;
 * one whose new routes a router did not take is re-routed afresh, and removed when no path is left.
 */
export async function smartRerouteCycle(
  deps: CircuitDeps,
  links: CircuitLinks,
  options: SmartRerouteOptions,
): Promise<void> {
  const snapshot = await links.snapshot();
  const candidates = rerouteCandidates([...deps.registry.all()], snapshot, options);
  const moves = rerouteDeps(deps, links);
  for (const { circuit, path, oldCost, newCost } of candidates) {
    if (deps.rerouting.has(circuit.id)) continue;
    deps.rerouting.add(circuit.id);
    try {
      deps.logger.info(
        { circuitId: circuit.id, oldPath: circuit.path.routerIds, path: path.routerIds, oldCost, newCost },
        'smart reroute: moving circuit to a cheaper path',
      );
      // upstream sets the new path before sending: a router that did not take it is sent it again below.
      const taken = await sendReroute(moves, circuit, path, 'stop');
      if (taken) moved(deps, circuit.id, path);
      else await rerouteAfresh(deps, moves, circuit.id);
    } finally {
      deps.rerouting.delete(circuit.id);
    }
  }
}

/**
 * upstream rerouteCircuitWithTries: a fresh path (a router that does not take it is only logged, as upstream's
 * rerouteCircuit), or the circuit removed when there is none. Upstream looks for a path twice in a row; the second
 * look sees the same network, so one is made here.
 */
async function rerouteAfresh(deps: CircuitDeps, moves: RerouteDeps, circuitId: string): Promise<void> {
  const circuit = deps.registry.get(circuitId);
  if (!circuit) return;
  const outcome = await rerouteCircuit(moves, circuit);
  if (outcome.rerouted) moved(deps, circuitId, outcome.path);
  // No path left: rerouteCircuit unrouted it already.
  else deps.ends.forget(circuitId, 'no path left', 'no path left when moving it to a cheaper one');
}
