// What the control plane tells operators' events where a fact happens (issue 31): src/events/fabric-events.ts
// implements it; each call is one line at the place the fact happens, and returns at once.
import type { MetricsMessage } from './messages/gen/metrics_pb.js';
import type { Circuit } from './circuits/circuit-registry.js';
import type { Link } from './links/link-model.js';

/** A dial that failed (upstream CircuitFailedEvent): what was known when it failed. */
export interface CircuitFailure {
  circuitId: string;
  /** The dialling session's id (upstream's circuit client id). */
  clientId: string;
  serviceId: string;
  /** `instance@service` dials name the instance. */
  instanceId: string;
  terminatorId: string;
  path: { routerIds: string[]; linkIds: string[] } | undefined;
  cost: number | undefined;
  /** upstream's CircuitFailureCause (NO_TERMINATORS, NO_PATH, ROUTER_RESPONSE_TIMEOUT, …). */
  cause: string;
  startedAt: number;
  tags: Record<string, string> | undefined;
}

export type LinkFact = 'routerLinkNew' | 'routerLinkKnown' | 'routerLinkDisconnectedDest' | 'fault' | 'duplicate';

export interface FabricEvents {
  circuitCreated(circuit: Circuit, startedAt: number, cost: number): void;
  circuitPathUpdated(circuit: Circuit): void;
  circuitDeleted(circuit: Circuit): void;
  circuitFailed(failure: CircuitFailure): void;
  link(fact: LinkFact, link: Pick<Link, 'id'> & Partial<Link>): void;
  /** A router's Metrics (1007), decoded: `metrics` and `fabric.usage` events, the routers' Prometheus metrics. */
  routerMetrics(routerId: string, message: MetricsMessage): void;
}
