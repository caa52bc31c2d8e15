// What routers report about circuits, as upstream v1.1.8 hears it (controller/handler_ctrl fault.go,
// circuit_confirmation.go, route_result.go): a Fault ends a circuit from either side or moves the circuits a router
// cannot forward; a CircuitConfirmation lists the circuits a router still carries (one unknown here and owned by no
// other process is unrouted, an idle one past its service's maximum ended); a RouteResult nobody waits for is a
// stale attempt's.
import { fromBinary } from '@bufbuild/protobuf';
import { edgeServiceById } from '../../store/queries/edge-sessions.js';
import type { Message } from '../channel/message.js';
import {
  CircuitConfirmationSchema,
  ContentType as CtrlType,
  FaultSchema,
  FaultSubject,
  type Fault,
} from '../messages/gen/ctrl_pb.js';
import { ControlContentType } from '../messages/headers.js';
import { decodeRouteResult, unrouteMessage } from './circuit-messages.js';
import type { CircuitDeps, ControlChannel } from './circuit-deps.js';
import { moveAfterForwardFault } from './circuit-moves.js';

/**
 * Serves the router's reports on its channel. Faults (1004) carry link and circuit subjects on one content type and a
 * channel keeps one handler per type: `linkFault` takes the links' first (true when the fault was about a link).
 */
export function serveCircuitReports(
  deps: CircuitDeps,
  routerId: string,
  channel: ControlChannel,
  linkFault: ((routerId: string, fault: Fault) => boolean) | undefined,
): void {
  channel.handle(CtrlType.FaultType, (message) => {
    const fault = fromBinary(FaultSchema, message.body);
    if (!linkFault?.(routerId, fault)) circuitFault(deps, routerId, channel, fault);
  });
  channel.handle(CtrlType.CircuitConfirmationType, (message) => confirm(deps, routerId, channel, message));
  channel.handle(ControlContentType.routeResult, (message) => lateRouteResult(deps, routerId, channel, message));
}

function circuitFault(deps: CircuitDeps, routerId: string, channel: ControlChannel, fault: Fault): void {
  if (fault.subject === FaultSubject.IngressFault || fault.subject === FaultSubject.EgressFault) {
    const end = fault.subject === FaultSubject.IngressFault ? 'dialling side closed' : 'hosting side closed';
    if (!deps.remove(fault.id, false, end))
      deps.logger.debug({ routerId, circuitId: fault.id }, 'fault for an unknown circuit');
  } else if (fault.subject === FaultSubject.ForwardFault || fault.subject === FaultSubject.UnknownOwnerForwardFault) {
    void moveAfterForwardFault(
      deps,
      routerId,
      channel,
      fault.id.split(' ').filter(Boolean),
      fault.subject === FaultSubject.ForwardFault,
    );
  } else {
    deps.logger.debug(
      { routerId, subject: fault.subject, id: fault.id },
      'link fault ignored: this controller makes no links',
    );
  }
}

async function confirm(deps: CircuitDeps, routerId: string, channel: ControlChannel, message: Message): Promise<void> {
  const { registry, records, logger } = deps;
  const confirmation = fromBinary(CircuitConfirmationSchema, message.body);
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
    if (!service) deps.remove(circuitId, true, 'service deleted');
    else if (
      idleNanos !== undefined &&
      service.maxIdleTimeMillis > 0 &&
      idleNanos >= BigInt(service.maxIdleTimeMillis) * 1_000_000n
    ) {
      deps.remove(
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
function lateRouteResult(deps: CircuitDeps, routerId: string, channel: ControlChannel, message: Message): void {
  const result = decodeRouteResult(message);
  if (!result) {
    deps.logger.error({ routerId }, 'missing attempt header in route result');
  } else if (!deps.routing.has(result.circuitId) && !deps.registry.get(result.circuitId)) {
    deps.logger.warn(
      { routerId, circuitId: result.circuitId },
      'route result for a circuit not being routed: sending unroute',
    );
    channel.send(unrouteMessage(result.circuitId, true));
  }
}
