// Writes what routers' edge hellos and syncs reached, many routers per transaction: everything asked for while one
// transaction runs goes in the next, so 500 routers connecting at once cost a handful of write turns, not 500.
import type { Store } from '../../store/store.js';
import { recordRouterSync, type RouterSyncState } from '../../store/queries/router-sync.js';

interface Pending {
  state: RouterSyncState;
  settle: Array<{ resolve: () => void; reject: (error: unknown) => void }>;
}

export class SyncStateWriter {
  readonly #store: Store;
  #pending = new Map<string, Pending>();
  #isDraining = false;

  constructor(store: Store) {
    this.#store = store;
  }

  /** Resolves once the state is stored (a later state of the same router asked for meanwhile replaces it). */
  write(routerId: string, state: RouterSyncState): Promise<void> {
    return new Promise((resolve, reject) => {
      const pending = this.#pending.get(routerId);
      this.#pending.set(routerId, {
        state: { ...pending?.state, ...state },
        settle: [...(pending?.settle ?? []), { resolve, reject }],
      });
      if (!this.#isDraining) void this.#drain();
    });
  }

  /** Writes until nothing is pending; the flag drops in the same turn as the last look, so no request is left behind. */
  async #drain(): Promise<void> {
    this.#isDraining = true;
    while (this.#pending.size > 0) {
      const batch = this.#pending;
      this.#pending = new Map();
      try {
        // Not bookkeeping: views that cache (a session's routers and their URLs) must see it, as they see the
        // control plane's own presence writes.
        await this.#store.transaction(async (tx) => {
          for (const [routerId, { state }] of batch) await recordRouterSync(tx, routerId, state);
        });
        for (const { settle } of batch.values()) settle.forEach(({ resolve }) => resolve());
      } catch (error) {
        for (const { settle } of batch.values()) settle.forEach(({ reject }) => reject(error));
      }
    }
    this.#isDraining = false;
  }
}
