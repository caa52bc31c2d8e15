// Each running instance keeps a row in the database (its name, address and when it was last seen) so that
// `GET /controllers` on any instance lists every instance sharing the database. A stopped instance removes its
// row; one that died stops beating, shows offline, and is forgotten after an hour.
import { formatTimestamp, type Clock } from '../lib/clock.js';
import {
  beatControllerInstance,
  liveControllerInstances,
  removeControllerInstances,
  type ControllerInstanceRow,
} from '../store/queries/cluster.js';
import { writeAreas, type Store } from '../store/store.js';

const BEAT_MS = 10_000;
/** An instance that missed three beats is offline. */
export const OFFLINE_AFTER_MS = 3 * BEAT_MS;
/** Rows of instances not seen for this long are deleted. */
const FORGET_AFTER_MS = 60 * 60_000;

export interface InstanceHeartbeatOptions {
  store: Store;
  clock: Clock;
  instanceId: string;
  name: string;
  /** `https://host:port` clients reach this instance at. */
  apiBase: string;
  onError: (error: unknown) => void;
}

export class InstanceHeartbeat {
  readonly #options: InstanceHeartbeatOptions;
  readonly #startedAt: string;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: InstanceHeartbeatOptions) {
    this.#options = options;
    this.#startedAt = formatTimestamp(options.clock());
  }

  /** Beats once (the instance is listed as soon as it serves), then every 10 s. */
  async start(): Promise<void> {
    await this.beat();
    this.#timer = setInterval(() => void this.beat().catch(this.#options.onError), BEAT_MS);
    this.#timer.unref();
  }

  async beat(): Promise<void> {
    const { store, clock, instanceId, name, apiBase } = this.#options;
    const now = clock();
    const row: ControllerInstanceRow = {
      id: instanceId,
      name,
      api_base: apiBase,
      started_at: this.#startedAt,
      last_seen_at: formatTimestamp(now),
    };
    // Bookkeeping: nothing cached holds instance rows (`instances()` reads them), so no instance drops its caches.
    await store.transaction(
      async (tx) => {
        await beatControllerInstance(tx, row);
        await removeControllerInstances(tx, undefined, formatTimestamp(new Date(now.getTime() - FORGET_AFTER_MS)));
      },
      { bookkeeping: true, touches: [writeAreas.controllerInstances] },
    );
  }

  /** The instances seen within the last hour, with whether each is still beating. */
  async instances(): Promise<Array<ControllerInstanceRow & { isOnline: boolean }>> {
    const { store, clock } = this.#options;
    const now = clock().getTime();
    const rows = await store.read((db) =>
      liveControllerInstances(db, formatTimestamp(new Date(now - FORGET_AFTER_MS))),
    );
    return rows.map((row) => ({ ...row, isOnline: Date.parse(row.last_seen_at) >= now - OFFLINE_AFTER_MS }));
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    const { store, clock, instanceId } = this.#options;
    await store.transaction(
      (tx) => removeControllerInstances(tx, instanceId, formatTimestamp(new Date(clock().getTime() - FORGET_AFTER_MS))),
      {
        bookkeeping: true,
        touches: [writeAreas.controllerInstances],
      },
    );
  }
}
