// The circuits this process routed, in memory only as upstream keeps them (controller/network's circuit store):
// a controller restart forgets them, the routers keep forwarding, and a router asking about a forgotten circuit
// (CircuitConfirmation) is told to unroute it. Bounded: past `capacity` a new circuit is refused, never an old one
// dropped. A router whose channel closes keeps its circuits for a grace (the router keeps forwarding without us);
// if it does not come back to this process within it, they are forgotten.

export interface Circuit {
  id: string;
  serviceId: string;
  serviceName: string;
  /** The dialling identity (upstream's clientId tag) and the hosting one. */
  clientId: string;
  hostId: string;
  terminatorId: string;
  strategy: string;
  /** Ingress and egress router; the same router while there are no links. */
  routerId: string;
  ingressId: string;
  egressId: string;
  tags: Record<string, string>;
  createdAt: number;
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
    let ids = this.#byRouter.get(circuit.routerId);
    if (!ids) this.#byRouter.set(circuit.routerId, (ids = new Set()));
    ids.add(circuit.id);
    return true;
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
    const ids = this.#byRouter.get(circuit.routerId);
    ids?.delete(id);
    if (ids?.size === 0) this.#byRouter.delete(circuit.routerId);
    return circuit;
  }

  ofRouter(routerId: string): Circuit[] {
    return [...(this.#byRouter.get(routerId) ?? [])].map((id) => this.#circuits.get(id)!);
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
    for (const circuit of this.#circuits.values()) if (circuit.detachedAt !== undefined && now - circuit.detachedAt >= graceMs) expired.push(circuit);
    for (const circuit of expired) this.remove(circuit.id);
    return expired;
  }
}
