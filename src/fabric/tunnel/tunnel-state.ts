// What upstream keeps per control channel for the router's tunneler (common_tunnel.go TunnelState): its current API
// session and config types, and the last session it was given per service and type (an LRU of 256).
const SESSION_CACHE_SIZE = 256;

export class TunnelState {
  apiSessionId = '';
  configTypes: string[] = [];
  readonly #sessions = new Map<string, string>();
  #creating: Promise<unknown> = Promise.resolve();

  /** Runs `make` after any creation in progress on this channel (upstream's createApiSessionLock). */
  creatingApiSession<T>(make: () => Promise<T>): Promise<T> {
    const next = this.#creating.then(make, make);
    // The caller is given `next` and so its failure; the chain only orders the next creation after this one.
    this.#creating = next.then(
      () => undefined,
      () => undefined,
    );
    return next;
  }

  sessionFor(serviceId: string, type: string): string | undefined {
    const key = `${serviceId}.${type}`;
    const id = this.#sessions.get(key);
    if (id !== undefined) {
      // Most recently used last: the first key is the one to drop.
      this.#sessions.delete(key);
      this.#sessions.set(key, id);
    }
    return id;
  }

  keepSession(serviceId: string, type: string, sessionId: string): void {
    const key = `${serviceId}.${type}`;
    this.#sessions.delete(key);
    this.#sessions.set(key, sessionId);
    if (this.#sessions.size > SESSION_CACHE_SIZE) {
      const oldest = this.#sessions.keys().next().value;
      if (oldest !== undefined) this.#sessions.delete(oldest);
    }
  }
}
