// Circuits moved when the network under them changes (issue 24; docs/reference/router-control-plane-links.md §5.6):
// off links that went away (upstream Network.rerouteLink), and after a router reports it cannot forward some
// (network/fault.go ForwardFault). A moved circuit keeps its new path (and its record says so); one with no path
// left was unrouted on its old path and is forgotten.
import { unrouteMessage } from './circuit-messages.js';
import type { CircuitDeps, CircuitLinks } from './circuit-deps.js';
import type { ControlChannel } from '../ctrl/router-channel.js';
import type { Link } from '../links/link-model.js';
import { shortestPath } from '../links/paths.js';
import { rerouteCircuit, rerouteCircuits, type RerouteDeps, type RerouteOutcome } from './reroute.js';

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
    if (!outcome.rerouted) {
      deps.ends.forget(outcome.circuitId, 'no path left', detail);
      continue;
    }
    deps.registry.setPath(outcome.circuitId, outcome.path, deps.clock().getTime());
    const circuit = deps.registry.get(outcome.circuitId);
    if (circuit) void deps.records?.put(circuit);
  }
}
