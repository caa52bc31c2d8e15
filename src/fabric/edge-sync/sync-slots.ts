// Upstream's bounded pool of sync workers (controller/sync_strats/sync_instant.go startSynchronizeWorker; its
// SyncWorkerCount is 10 in controller/server/controller.go and has no setting): at most this many routers receive a
// full API-session state at once, the others wait in the order they asked. Each sender waits for its router to read
// what it was sent, so the bound bounds the state this process holds in memory; without it 1,000 routers connecting
// together had their whole states (~0.9 MB each at 10,000 sessions) buffered at once.

/** Upstream's SyncWorkerCount. */
export const SYNC_WORKER_COUNT = 10;

interface Waiter {
  grant: () => void;
}

export class SyncSlots {
  readonly #limit: number;
  #busy = 0;
  /** In the order they asked (a Set keeps insertion order, and a router that leaves is taken out directly). */
  readonly #waiting = new Set<Waiter>();

  constructor(limit = SYNC_WORKER_COUNT) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`sync workers must be a positive integer, got ${limit}`);
    this.#limit = limit;
  }

  /** How many full states are being sent now. */
  get busy(): number {
    return this.#busy;
  }

  /**
   * Runs `work` once a slot is free. `gone` settles when the router closes its connection: a router still waiting
   * leaves the line without running `work`, one being sent to frees its slot at once (its `work` stops at its next
   * look at the channel).
   */
  async run(gone: Promise<void>, work: () => Promise<void>): Promise<void> {
    const release = await this.#acquire(gone);
    if (!release) return;
    void gone.then(release);
    try {
      await work();
    } finally {
      release();
    }
  }

  #acquire(gone: Promise<void>): Promise<(() => void) | undefined> {
    if (this.#busy < this.#limit) {
      this.#busy++;
      return Promise.resolve(this.#releaser());
    }
    return new Promise((resolve) => {
      const waiter: Waiter = { grant: () => resolve(this.#releaser()) };
      this.#waiting.add(waiter);
      void gone.then(() => {
        if (this.#waiting.delete(waiter)) resolve(undefined);
      });
    });
  }

  /** Frees the slot once, however many times it is called (at the end of the work, and when the router goes). */
  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const [next] = this.#waiting;
      if (next) {
        // The slot passes to the next in line: the count of busy slots does not change.
        this.#waiting.delete(next);
        next.grant();
      } else this.#busy--;
    };
  }
}
