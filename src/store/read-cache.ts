// Results of reads kept until the next committed write: any write moves the store's generation and every entry
// made before it is rebuilt on its next use, so a cached answer is never older than the data it came from.
import type { Store } from './store.js';

export class ReadCache<V> {
  readonly #entries = new Map<string, { generation: number; value: V }>();

  constructor(
    private readonly store: Store,
    /** Entries kept at most; past that the cache starts again empty (simple, and bounded). */
    private readonly capacity = 10_000,
  ) {}

  /** `keep` may refuse to keep a value (one that would go stale with time alone, or is too large to hold). */
  async get(key: string, build: () => Promise<V>, keep: (value: V) => boolean = () => true): Promise<V> {
    const generation = this.store.generation;
    const cached = this.#entries.get(key);
    if (cached && cached.generation === generation) return cached.value;
    const value = await build();
    // A write that committed while building makes this value possibly stale: keep it only if none did.
    if (this.store.generation === generation && keep(value)) {
      if (this.#entries.size >= this.capacity) this.#entries.clear();
      this.#entries.set(key, { generation, value });
    }
    return value;
  }

  /** The entry made at the store's current generation, without building one. */
  peek(key: string): { value: V } | undefined {
    const cached = this.#entries.get(key);
    return cached && cached.generation === this.store.generation ? cached : undefined;
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }
}

/** A ReadCache per store, made on first use: for an operation handler, which holds no state of its own per app. */
export class ReadCaches<V> {
  readonly #byStore = new WeakMap<Store, ReadCache<V>>();

  constructor(private readonly capacity?: number) {}

  of(store: Store): ReadCache<V> {
    let cache = this.#byStore.get(store);
    if (!cache) this.#byStore.set(store, (cache = new ReadCache<V>(store, this.capacity)));
    return cache;
  }
}
