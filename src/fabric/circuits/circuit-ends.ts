// How a circuit ends, in one place (network.RemoveCircuit in v1.1.8): it leaves the registry, its store record goes,
// its strategy is told, the end is counted and logged; `remove` also unroutes it at every router of its path,
// `forget` is for one already unrouted (a re-route found no path left). Everything that ends circuits (a Fault, a
// confirmation, a move, an operator, a router that stayed away) calls this owner rather than back into Circuits.
import type { Clock } from '../../lib/clock.js';
import type { CircuitEnd, FabricMetrics } from '../ctrl/fabric-metrics.js';
import type { FabricLogger } from '../ctrl/router-channel.js';
import { unrouteAt } from './circuit-messages.js';
import type { CircuitRecords } from './circuit-records.js';
import type { Circuit, CircuitRegistry } from './circuit-registry.js';
import type { RouteMessenger } from './reroute.js';
import type { Strategies } from './strategies.js';
import type { FabricEvents } from '../fabric-events.js';

export interface CircuitEndsParts {
  registry: CircuitRegistry;
  strategies: Strategies;
  messenger: RouteMessenger;
  clock: Clock;
  logger: FabricLogger;
  metrics: FabricMetrics | undefined;
  records: Pick<CircuitRecords, 'ended'> | undefined;
  events: Pick<FabricEvents, 'circuitDeleted'> | undefined;
}

export class CircuitEnds {
  constructor(private readonly parts: CircuitEndsParts) {}

  /** Ends a circuit: Unroute to every router of its path, then forgotten; undefined when unknown. */
  remove(circuitId: string, now: boolean, end: CircuitEnd, detail?: string): Circuit | undefined {
    const circuit = this.parts.registry.remove(circuitId);
    if (!circuit) return undefined;
    void unrouteAt(this.parts, circuit.path.routerIds, circuitId, now);
    this.#ended(circuit, end, detail);
    return circuit;
  }

  /** Forgets a circuit already unrouted (a re-route found no path left). */
  forget(circuitId: string, end: CircuitEnd, detail: string): void {
    const circuit = this.parts.registry.remove(circuitId);
    if (circuit) this.#ended(circuit, end, detail);
  }

  /** The circuits whose router stayed away for the grace are forgotten (the router is gone; nothing to unroute). */
  expire(graceMs: number): void {
    for (const circuit of this.parts.registry.expire(this.parts.clock().getTime(), graceMs))
      this.#ended(circuit, 'router gone', `its router did not reconnect within ${graceMs} ms`);
  }

  #ended(circuit: Circuit, end: CircuitEnd, detail?: string): void {
    const { records, strategies, metrics, events, logger, clock } = this.parts;
    records?.ended(circuit.id);
    strategies.get(circuit.strategy)?.notify('circuitRemoved', circuit.terminatorId);
    metrics?.circuitEnded(end);
    events?.circuitDeleted(circuit);
    logger.info(
      {
        circuitId: circuit.id,
        service: circuit.serviceName,
        serviceId: circuit.serviceId,
        clientId: circuit.clientId,
        hostId: circuit.hostId,
        routerId: circuit.routerId,
        durationMs: clock().getTime() - circuit.createdAt,
        reason: detail ?? end,
      },
      'circuit ended',
    );
  }
}
