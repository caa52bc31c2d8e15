// Reads the routers' change feed (migration 019) after the last entry this process delivered, a few times a second,
// so an API-session change committed by any worker or instance reaches the routers this process holds within 1 s;
// and at once after this process's own commits that may have written it, because a v1.1.8 router holds an SDK's
// Connect until it knows the SDK's new API session (xgress_edge GetApiSessionWithTimeout): a first dial right after a
// login waited for the next poll.
// A poll that finds nothing new is one primary-key read; nothing is written but the occasional pruning.
import type { Store } from '../../store/store.js';
import {
  hasRouterSyncFeedThrough,
  pruneRouterSyncFeed,
  routerSyncFeedAfter,
  routerSyncFeedHead,
  writesRouterSyncFeed,
  type FeedEntry,
} from '../../store/queries/router-sync.js';

/** How often the feed is looked at: a change waits at most this long plus the delivery. */
export const FEED_POLL_MS = 250;
/** Entries read per round; a longer backlog is read over the next rounds. */
const BATCH = 1000;
/**
 * How long a missing sequence number is waited for. PostgreSQL numbers rows when they are inserted, not when their
 * transaction commits, so a later number may be seen before an earlier one; the earlier either commits within its
 * transaction's lifetime or was rolled back and never comes.
 */
const GAP_WAIT_MS = 5_000;
/** Entries are pruned once they are this old (every live process read them long before). */
const PRUNE_AFTER_MS = 60_000;

export interface ChangeFeedOptions {
  store: Store;
  /** Called with each round's new entries, in sequence order; the next round waits for it. */
  deliver: (entries: FeedEntry[]) => Promise<void> | void;
  onError: (error: unknown) => void;
  /** Milliseconds, for gap and pruning ages (tests move it). */
  now?: () => number;
  pollMs?: number;
}

export class ChangeFeed {
  readonly #options: ChangeFeedOptions;
  readonly #now: () => number;
  /** Every entry up to here was delivered (or given up as never coming). */
  #cursor = 0;
  /** Entries after the cursor that were delivered while an earlier one was missing. */
  readonly #ahead = new Set<number>();
  /** When the oldest missing entry was first missed. */
  #gapSince: number | undefined;
  /** The head seen at the last pruning, and when: pruned at the next one, a full interval later. */
  #pruneMark = { seq: 0, at: 0 };
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  /** A round was asked for while one ran: it may have read the feed before the commit that asked. */
  #again = false;
  #stopped = false;

  constructor(options: ChangeFeedOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** Starts from the present: what is in the feed now happened before any router of this process was synchronised. */
  async start(): Promise<void> {
    this.#cursor = await this.#options.store.read(routerSyncFeedHead);
    this.#pruneMark = { seq: this.#cursor, at: this.#now() };
    this.#timer = setInterval(() => void this.poll(), this.#options.pollMs ?? FEED_POLL_MS);
    this.#timer.unref();
    this.#options.store.changes.onLocalCommit((tables) => {
      if (!this.#stopped && writesRouterSyncFeed(tables)) setImmediate(() => void this.poll());
    });
  }

  /** The sequence a full state read now covers: entries after it are delivered after that state. */
  get cursor(): number {
    return this.#cursor;
  }

  /** One round (rounds never overlap: a call during one waits for it). */
  poll(): Promise<void> {
    if (this.#running) {
      this.#again = true;
      return this.#running;
    }
    this.#running = this.#round()
      .catch(this.#options.onError)
      .finally(() => {
        this.#running = undefined;
        if (this.#again && !this.#stopped) {
          this.#again = false;
          void this.poll();
        }
      });
    return this.#running;
  }

  async #round(): Promise<void> {
    const { store, deliver } = this.#options;
    // One range read of the primary key: empty when nothing is new (no look at the head first).
    const entries = await store.read((db) => routerSyncFeedAfter(db, this.#cursor, BATCH));
    const fresh = entries.filter((entry) => !this.#ahead.has(entry.seq));
    if (fresh.length > 0) await deliver(fresh);
    for (const entry of fresh) this.#ahead.add(entry.seq);
    this.#advance();
    await this.#prune();
  }

  /** Moves the cursor over delivered entries, and over a missing one that has been missing too long. */
  #advance(): void {
    for (;;) {
      while (this.#ahead.delete(this.#cursor + 1)) this.#cursor++;
      if (this.#ahead.size === 0) {
        this.#gapSince = undefined;
        return;
      }
      const now = this.#now();
      this.#gapSince ??= now;
      if (now - this.#gapSince < GAP_WAIT_MS) return;
      this.#cursor = Math.min(...this.#ahead) - 1;
      this.#gapSince = undefined;
    }
  }

  /** Deletes what was in the feed a full interval ago; looks first, so an empty feed costs no write. */
  async #prune(): Promise<void> {
    const { store } = this.#options;
    const now = this.#now();
    if (now - this.#pruneMark.at < PRUNE_AFTER_MS) return;
    const through = this.#pruneMark.seq;
    this.#pruneMark = { seq: await store.read(routerSyncFeedHead), at: now };
    if (through > 0 && (await store.read((db) => hasRouterSyncFeedThrough(db, through)))) {
      // Bookkeeping: no cache holds feed entries.
      await store.transaction((tx) => pruneRouterSyncFeed(tx, through), { bookkeeping: true });
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    await this.#running;
  }
}
