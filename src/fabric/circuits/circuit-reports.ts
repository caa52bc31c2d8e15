// What routers report about circuits, as upstream v1.1.8 hears it (controller/handler_ctrl fault.go,
// circuit_confirmation.go, route_result.go): a Fault ends a circuit from either side or moves the circuits a router
// cannot forward; a CircuitConfirmation lists the circuits a router still carries (one unknown here and owned by no
// other process is unrouted, an idle one past its service's maximum ended); a RouteResult nobody waits for is a
// stale attempt's.
import { edgeServiceById } from '../../store/queries/edge-sessions.js';
import { FaultSubject, type CircuitConfirmation, type Fault } from '../messages/gen/ctrl_pb.js';
import type { ControlChannel } from '../ctrl/router-channel.js';
import { unrouteMessage, type RouteResult } from './circuit-messages.js';
import type { CircuitDeps } from './circuit-deps.js';
import { moveAfterForwardFault } from './circuit-moves.js';

/** A Fault (1004) about a circuit: one side closed it, or a router cannot forward it. */
export async function circuitFault(
  deps: CircuitDeps,
  routerId: string,
  channel: ControlChannel,
  fault: Fault,
): Promise<void> {
  if (fault.subject === FaultSubject.IngressFault || fault.subject === FaultSubject.EgressFault) {
    const end = fault.subject === FaultSubject.IngressFault ? 'dialling side closed' : 'hosting side closed';
    if (!deps.ends.remove(fault.id, false, end))
      deps.logger.debug({ routerId, circuitId: fault.id }, 'fault for an unknown circuit');
  } else if (fault.subject === FaultSubject.ForwardFault || fault.subject === FaultSubject.UnknownOwnerForwardFault) {
    await moveAfterForwardFault(
      deps,
      routerId,
      channel,
      fault.id.split(' ').filter(Boolean),
      fault.subject === FaultSubject.ForwardFault,
    );
  } else {
    deps.logger.debug(
      { routerId, subject: fault.subject, id: fault.id },
      'fault with a subject about no circuit ignored',
    );
  }
}

/** CircuitConfirmation (1034): the circuits a router still carries. */
export async function confirmCircuits(
  deps: CircuitDeps,
  routerId: string,
  channel: ControlChannel,
  confirmation: CircuitConfirmation,
): Promise<void> {
  const { registry, records, logger } = deps;
  logger.info({ routerId, circuitCount: confirmation.circuitIds.length }, 'received circuit confirmation request');
  const unknown = confirmation.circuitIds.filter((circuitId) => !registry.get(circuitId));
  const elsewhere = unknown.length > 0 && records ? await records.ownedElsewhere(unknown) : new Set<string>();
  for (const circuitId of confirmation.circuitIds) {
    if (elsewhere.has(circuitId)) continue;
    const circuit = registry.get(circuitId);
    if (!circuit || !circuit.path.routerIds.includes(routerId)) {
      channel.send(unrouteMessage(circuitId, true));
      logger.info({ routerId, circuitId }, 'sent unroute to router for circuit');
      continue;
    }
    const idleNanos = confirmation.idleTimes[circuitId];
    const service = await deps.store.read((db) => edgeServiceById(db, circuit.serviceId));
    if (!service) deps.ends.remove(circuitId, true, 'service deleted');
    else if (
      idleNanos !== undefined &&
      service.maxIdleTimeMillis > 0 &&
      idleNanos >= BigInt(service.maxIdleTimeMillis) * 1_000_000n
    ) {
      deps.ends.remove(
        circuitId,
        true,
        'idle',
        `idle for ${idleNanos / 1_000_000n} ms, past the service's maximum of ${service.maxIdleTimeMillis} ms`,
      );
    }
  }
}

/**
 * A RouteResult no request waited for (it came after its attempt timed out). Upstream unroutes any circuit it is
 * not routing at that moment, live ones included; a circuit set up by a later attempt is left alone here, as
 * the router's forwarding table already holds that attempt's route.
 */
export function lateRouteResult(
  deps: CircuitDeps,
  routerId: string,
  channel: ControlChannel,
  result: RouteResult,
): void {
  if (!deps.routing.has(result.circuitId) && !deps.registry.get(result.circuitId)) {
    deps.logger.warn(
      { routerId, circuitId: result.circuitId },
      'route result for a circuit not being routed: sending unroute',
    );
    channel.send(unrouteMessage(result.circuitId, true));
  }
}
