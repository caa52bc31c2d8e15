// The control plane's facts as upstream v1.1.8's events (network/circuit_lifecycle.go CircuitEvent and
// CircuitFailedEvent, network/assembly.go NotifyLinkEvent): built only when someone subscribed, handed to the
// dispatcher, never waited for.
import type { Clock } from '../lib/clock.js';
import type { Circuit } from '../fabric/circuits/circuit-registry.js';
import type { CircuitFailure, FabricEvents, LinkFact } from '../fabric/fabric-events.js';
import type { Link } from '../fabric/links/link-model.js';
import type { MetricsMessage } from '../fabric/messages/gen/metrics_pb.js';
import type { EventDispatcher } from './dispatcher.js';
import { goDurationNs, goJsonTime, type CircuitEvent, type CircuitPath } from './event-types.js';
import type { ServiceCounters } from './service-counters.js';

export interface FabricEventsOptions {
  dispatcher: EventDispatcher;
  clock: Clock;
  /** The dial counters behind `services` events. */
  services: ServiceCounters;
  /** Also told of every Metrics message (the routers' Prometheus metrics). */
  onRouterMetrics?: (routerId: string, message: MetricsMessage) => void;
}

/** upstream writes a nil slice as null: a path of one router has no links. */
const orNull = (values: readonly string[]) => (values.length > 0 ? [...values] : null);

function pathOf(path: { routerIds: string[]; linkIds: string[] } | undefined, ends?: Circuit): CircuitPath {
  return {
    nodes: path ? orNull(path.routerIds) : null,
    links: path ? orNull(path.linkIds) : null,
    ingress_id: ends?.ingressId ?? '',
    egress_id: ends?.egressId ?? '',
  };
}

/** instance@service → the instance (parseInstanceIdAndService). */
const instanceOf = (tags: Readonly<Record<string, string>>) => {
  const serviceTag = tags.serviceId ?? '';
  const at = serviceTag.indexOf('@');
  return at >= 0 ? serviceTag.slice(0, at) : '';
};

export function fabricEvents(options: FabricEventsOptions): FabricEvents {
  const { dispatcher, clock, services } = options;
  const now = () => clock();

  const circuitEvent = (
    eventType: CircuitEvent['event_type'],
    circuit: Circuit,
    extra: Pick<CircuitEvent, 'creation_timespan' | 'path_cost' | 'duration'>,
  ): CircuitEvent => ({
    namespace: 'fabric.circuits',
    version: 2,
    event_type: eventType,
    circuit_id: circuit.id,
    timestamp: goJsonTime(now()),
    client_id: circuit.clientId,
    service_id: circuit.serviceId,
    terminator_id: circuit.terminatorId,
    instance_id: instanceOf(circuit.tags),
    ...(extra.creation_timespan !== undefined ? { creation_timespan: extra.creation_timespan } : {}),
    path: pathOf(circuit.path, circuit),
    link_count: circuit.path.linkIds.length,
    ...(extra.path_cost !== undefined ? { path_cost: extra.path_cost } : {}),
    ...(extra.duration !== undefined ? { duration: extra.duration } : {}),
    tags: { ...circuit.tags },
  });

  const lifetime = (circuit: Circuit) => goDurationNs(now().getTime() - circuit.createdAt);

  return {
    circuitCreated(circuit, startedAt, cost) {
      services.count('service.dial.success', `${circuit.serviceId}:${circuit.terminatorId}`, now());
      if (!dispatcher.wants('fabric.circuits')) return;
      dispatcher.emit(
        circuitEvent('created', circuit, {
          creation_timespan: goDurationNs(circuit.createdAt - startedAt),
          path_cost: cost,
        }),
      );
    },
    circuitPathUpdated(circuit) {
      if (dispatcher.wants('fabric.circuits'))
        dispatcher.emit(circuitEvent('pathUpdated', circuit, { duration: lifetime(circuit) }));
    },
    circuitDeleted(circuit) {
      if (dispatcher.wants('fabric.circuits'))
        dispatcher.emit(circuitEvent('deleted', circuit, { duration: lifetime(circuit) }));
    },
    circuitFailed(failure: CircuitFailure) {
      countFailure(services, failure, now());
      if (!dispatcher.wants('fabric.circuits')) return;
      dispatcher.emit({
        namespace: 'fabric.circuits',
        version: 2,
        event_type: 'failed',
        circuit_id: failure.circuitId,
        timestamp: goJsonTime(now()),
        client_id: failure.clientId,
        service_id: failure.serviceId,
        terminator_id: failure.terminatorId,
        instance_id: failure.instanceId,
        creation_timespan: goDurationNs(now().getTime() - failure.startedAt),
        path: pathOf(failure.path),
        link_count: failure.path?.linkIds.length ?? 0,
        ...(failure.cost !== undefined ? { path_cost: failure.cost } : {}),
        failure_cause: failure.cause,
        tags: failure.tags ? { ...failure.tags } : null,
      });
    },
    link(fact: LinkFact, link: Pick<Link, 'id'> & Partial<Link>) {
      if (!dispatcher.wants('fabric.links')) return;
      dispatcher.emit({
        namespace: 'fabric.links',
        event_type: fact,
        timestamp: goJsonTime(now()),
        link_id: link.id,
        src_router_id: link.srcRouterId ?? '',
        dst_router_id: link.dstRouterId ?? '',
        protocol: link.protocol ?? '',
        dial_address: link.dialAddress ?? '',
        cost: link.staticCost ?? 0,
      });
    },
    routerMetrics(routerId, message) {
      options.onRouterMetrics?.(routerId, message);
      dispatcher.routerMetrics(routerId, message);
    },
  };
}

/** upstream's service counters by failure (network.go CreateCircuit's ServiceDial* calls). */
function countFailure(services: ServiceCounters, failure: CircuitFailure, at: Date): void {
  const combined = `${failure.serviceId}:${failure.terminatorId}`;
  if (failure.cause === 'ROUTER_RESPONSE_TIMEOUT' || failure.cause === 'ROUTER_ERR_DIAL_TIMED_OUT')
    services.count('service.dial.timeout', combined, at);
  else if (failure.cause.startsWith('ROUTER_')) services.count('service.dial.fail', combined, at);
  else services.count('service.dial.error_other', failure.serviceId, at);
}
