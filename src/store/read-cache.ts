// Answers built from reads, kept until what they depend on changes (changes.ts): each entry names its change keys
// and is rebuilt on its next use once any of them moved, here or on another instance (Store.refresh), so a kept
// answer is never older than the data it came from. Bounded like every cache of the project (LruMap).
import { LruMap } from '../lib/lru-map.js';
import type { ChangeClock, ChangeKey } from './store.js';
import type { Store } from './store.js';

interface Entry<V> {
  at: number;
  dependsOn: readonly ChangeKey[];
  value: V;
}

/** What an answer depends on: fixed keys, or keys read off the answer (the identity a session belongs to). */
export type DependsOn<V> = readonly ChangeKey[] | ((value: V) => readonly ChangeKey[]);

export class ReadCache<V> {
  readonly #entries: LruMap<string, Entry<V>>;
  readonly #changes: ChangeClock;

  constructor(store: Pick<Store, 'changes'>, capacity = 10_000) {
    this.#changes = store.changes;
    this.#entries = new LruMap(capacity);
  }

  /** `keep` may refuse to keep a value (one that would go stale with time alone, or is too large to hold). */
  async get(
    key: string,
    dependsOn: DependsOn<V>,
    build: () => Promise<V>,
    keep: (value: V) => boolean = () => true,
  ): Promise<V> {
    const cached = this.peek(key);
    if (cached) return cached.value;
    const at = this.#changes.now();
    const value = await build();
    const keys = typeof dependsOn === 'function' ? dependsOn(value) : dependsOn;
    // A write that committed while building makes this value possibly stale: keep it only if none did.
    if (!this.#changes.changedSince(keys, at) && keep(value)) this.#entries.set(key, { at, dependsOn: keys, value });
    return value;
  }

  /** The entry still valid under `key`, without building one. */
  peek(key: string): { value: V } | undefined {
    const cached = this.#entries.get(key);
    return cached && !this.#changes.changedSince(cached.dependsOn, cached.at) ? cached : undefined;
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
