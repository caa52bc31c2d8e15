// The circuits this process routed, in its memory as upstream keeps them (controller/network's circuit store; the
// store's rows, circuit-records.ts, only show them to every process): a controller restart forgets them, the routers
// keep forwarding, and a router asking about a forgotten circuit (CircuitConfirmation) is told to unroute it. Bounded: past `capacity` a new circuit is refused, never an old one
// dropped. A router whose channel closes keeps its circuits for a grace (the router keeps forwarding without us);
// if it does not come back to this process within it, they are forgotten. A circuit is indexed under every router
// of its path.
import type { CircuitSummary } from '../network-views.js';
import { mustGet } from '../../lib/collections.js';

export interface Circuit {
  id: string;
  serviceId: string;
  serviceName: string;
  /**
   * The dialling edge session's id: upstream's circuit `clientId` (handler_edge_ctrl/common.go, `TokenId{Token:
   * session.Id}`), which `ziti fabric list circuits` shows as CLIENT; the dialling identity is the `clientId` tag. A
   * fabric CircuitRequest's is the request's ingress id ('' from a proxy listener).
   */
  clientId: string;
  /** The hosting identity. */
  hostId: string;
  /**
   * The Dial session it was created with (upstream's circuit ClientId: the session route-path finds it by it); none
   * for a router's fabric CircuitRequest, whose client is its ingress id.
   */
  sessionId?: string;
  terminatorId: string;
  strategy: string;
  /** The terminator's (egress) router, the last of the path. */
  routerId: string;
  /** The routers from the dialling one to the terminator's, and the links between them (one router: no links). */
  path: { routerIds: string[]; linkIds: string[] };
  /** What the egress dials: kept to re-send the routes when the circuit moves to another path. */
  terminator: { binding: string; address: string };
  ingressId: string;
  egressId: string;
  tags: Record<string, string>;
  createdAt: number;
  /** When its path last changed (created, or re-routed). */
  updatedAt: number;
  /** When its router's channel closed; undefined while connected. */
  detachedAt?: number;
}

export class CircuitRegistry {
  readonly #circuits = new Map<string, Circuit>();
  readonly #byRouter = new Map<string, Set<string>>();

  constructor(readonly capacity = 100_000) {}

  get size(): number {
    return this.#circuits.size;
  }

  get isFull(): boolean {
    return this.#circuits.size >= this.capacity;
  }

  add(circuit: Circuit): boolean {
    if (this.isFull) return false;
    this.#circuits.set(circuit.id, circuit);
    this.#index(circuit);
    return true;
  }

  /** The circuit moved to another path (a re-route). */
  setPath(id: string, path: Circuit['path'], now: number): void {
    const circuit = this.#circuits.get(id);
    if (!circuit) return;
    this.#unindex(circuit);
    circuit.path = { routerIds: [...path.routerIds], linkIds: [...path.linkIds] };
    circuit.updatedAt = now;
    this.#index(circuit);
  }

  #index(circuit: Circuit): void {
    for (const routerId of circuit.path.routerIds) {
      let ids = this.#byRouter.get(routerId);
      if (!ids) this.#byRouter.set(routerId, (ids = new Set()));
      ids.add(circuit.id);
    }
  }

  #unindex(circuit: Circuit): void {
    for (const routerId of circuit.path.routerIds) {
      const ids = this.#byRouter.get(routerId);
      ids?.delete(circuit.id);
      if (ids?.size === 0) this.#byRouter.delete(routerId);
    }
  }

  all(): IterableIterator<Circuit> {
    return this.#circuits.values();
  }

  get(id: string): Circuit | undefined {
    return this.#circuits.get(id);
  }

  remove(id: string): Circuit | undefined {
    const circuit = this.#circuits.get(id);
    if (!circuit) return undefined;
    this.#circuits.delete(id);
    this.#unindex(circuit);
    return circuit;
  }

  ofRouter(routerId: string): Circuit[] {
    return [...(this.#byRouter.get(routerId) ?? [])].map((id) => mustGet(this.#circuits, id));
  }

  detach(routerId: string, now: number): void {
    for (const circuit of this.ofRouter(routerId)) circuit.detachedAt ??= now;
  }

  reattach(routerId: string): void {
    for (const circuit of this.ofRouter(routerId)) delete circuit.detachedAt;
  }

  /** Removes and answers the circuits detached for at least `graceMs`. */
  expire(now: number, graceMs: number): Circuit[] {
    const expired: Circuit[] = [];
    for (const circuit of this.#circuits.values())
      if (circuit.detachedAt !== undefined && now - circuit.detachedAt >= graceMs) expired.push(circuit);
    for (const circuit of expired) this.remove(circuit.id);
    return expired;
  }
}

/** A circuit as `/fabric/v1/circuits` shows it. */
export function circuitSummary(circuit: Circuit): CircuitSummary {
  return {
    id: circuit.id,
    clientId: circuit.clientId,
    serviceId: circuit.serviceId,
    terminatorId: circuit.terminatorId,
    sessionId: circuit.sessionId,
    createdAt: new Date(circuit.createdAt),
    updatedAt: new Date(circuit.updatedAt),
    tags: circuit.tags,
    path: { routerIds: [...circuit.path.routerIds], linkIds: [...circuit.path.linkIds] },
  };
}
