// Router presence in the store (migration 018): the only writes liveness makes. Heartbeats stay in memory; the store
// hears of a router only when it connects or disconnects, and those writes are batched (everything queued while one
// transaction runs goes in the next), so 500 routers connecting at once cost a handful of transactions. Two
// background checks keep the store honest: routers held by an instance that stopped beating go offline, and this
// process drops channels of routers deleted, disabled or re-enrolled since (through any instance).
import { formatTimestamp, type Clock } from '../../lib/clock.js';
import {
  hasRoutersOfDeadInstances,
  markRoutersConnected,
  markRoutersDisconnected,
  releaseInstanceRouters,
  releaseRoutersOfDeadInstances,
  routerPresence,
  routersForConnection,
  type RouterPresenceRow,
} from '../../store/queries/router-presence.js';
import type { Store } from '../../store/store.js';
import { readKeys } from '../../store/changes.js';
import type { RouterConnection, RouterRegistry } from './router-connections.js';

/** What the watch reads: the routers' rows (deleted, disabled, re-enrolled) and who holds them. */
const ROUTER_ROWS = readKeys.routersHeld;

export interface RouterPresenceOptions {
  store: Store;
  clock: Clock;
  instanceId: string;
  registry: RouterRegistry;
  /** An instance whose heartbeat is older than this is dead (system/instance-heartbeat.ts OFFLINE_AFTER_MS). */
  instanceOfflineAfterMs: number;
  onError: (error: unknown) => void;
  /** How often this process re-checks the routers it holds, when the store changed (default 1 s). */
  watchIntervalMs?: number;
  /** How often dead instances' routers are released (default 10 s, the instance heartbeat). */
  sweepIntervalMs?: number;
}

type Change = { kind: 'connected'; connection: RouterConnection } | { kind: 'disconnected'; routerId: string };

export class RouterPresence {
  readonly #options: RouterPresenceOptions;
  readonly #fingerprints = new Map<string, string>();
  #queue: Change[] = [];
  #draining: Promise<void> | undefined;
  #timers: NodeJS.Timeout[] = [];
  /** When the routers' rows were last looked at (changes.ts); undefined before the first look. */
  #watchedAt: number | undefined;
  #watching = false;

  constructor(options: RouterPresenceOptions) {
    this.#options = options;
  }

  start(): void {
    const { watchIntervalMs = 1000, sweepIntervalMs = 10_000 } = this.#options;
    this.#timers = [
      setInterval(() => void this.watch(), watchIntervalMs).unref(),
      setInterval(() => void this.sweep(), sweepIntervalMs).unref(),
    ];
  }

  /** `fingerprint`: the one it authenticated with, so a re-enrollment elsewhere drops the channel. */
  connected(connection: RouterConnection, fingerprint: string): void {
    this.#fingerprints.set(connection.routerId, fingerprint);
    this.#enqueue({ kind: 'connected', connection });
  }

  disconnected(connection: RouterConnection): void {
    this.#fingerprints.delete(connection.routerId);
    this.#enqueue({ kind: 'disconnected', routerId: connection.routerId });
  }

  /** Resolves once every change queued so far is in the store. */
  async flushed(): Promise<void> {
    while (this.#draining) await this.#draining;
  }

  /** Stops the checks and marks every router this instance holds offline. */
  async stop(): Promise<void> {
    this.#timers.forEach(clearInterval);
    await this.flushed();
    await this.releaseInstance(this.#options.instanceId);
  }

  /** Marks offline every router `instanceId` holds (this one stopping, or a dead one it replaces); how many. */
  releaseInstance(instanceId: string): Promise<number> {
    return this.#options.store.transaction((tx) => releaseInstanceRouters(tx, instanceId));
  }

  #enqueue(change: Change): void {
    this.#queue.push(change);
    this.#draining ??= this.#drain();
  }

  async #drain(): Promise<void> {
    const { store, instanceId, onError } = this.#options;
    // The drain clears its own mark in the very turn it finds the queue empty: cleared a turn later (a `.finally`),
    // a change queued in between would find the mark still set and wait for the next connect or disconnect.
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue;
        this.#queue = [];
        try {
          await store.transaction(async (tx) => {
            for (const change of batch) {
              if (change.kind === 'disconnected') await markRoutersDisconnected(tx, instanceId, [change.routerId]);
              else {
                const { routerId, connectedAt, versionInfo, linkListeners } = change.connection;
                const row = {
                  routerId,
                  instanceId,
                  connectedAt: formatTimestamp(new Date(connectedAt)),
                  versionInfo: JSON.stringify(versionInfo),
                  linkListeners: JSON.stringify(linkListeners),
                };
                await markRoutersConnected(tx, [row]);
              }
            }
          });
        } catch (error) {
          onError(error);
        }
      }
    } finally {
      this.#draining = undefined;
    }
  }

  /**
   * Drops channels of routers that were deleted, disabled or re-enrolled, or that connected to another instance
   * since (the router left this one; a channel it left open is dead), once the store has moved.
   */
  async watch(): Promise<void> {
    const { store, registry, onError } = this.#options;
    if (this.#watching || registry.size === 0) return;
    this.#watching = true;
    try {
      await store.refresh();
      const now = store.changes.now();
      if (this.#watchedAt !== undefined && !store.changes.changedSince(ROUTER_ROWS, this.#watchedAt)) return;
      this.#watchedAt = now;
      const held = [...registry.all()];
      const ids = held.map((connection) => connection.routerId);
      const [routers, presence] = await store.read(
        async (db) =>
          [
            new Map((await routersForConnection(db, ids)).map((router) => [router.id, router])),
            await routerPresence(db, ids),
          ] as const,
      );
      for (const connection of held) {
        const router = routers.get(connection.routerId);
        const reason = !router
          ? 'router deleted'
          : router.disabled
            ? 'router disabled'
            : router.fingerprint !== this.#fingerprints.get(connection.routerId)
              ? 'router certificate changed'
              : this.#heldElsewhere(connection, presence.get(connection.routerId))
                ? 'router connected to another controller instance'
                : undefined;
        if (reason) connection.channel.close(reason);
      }
    } catch (error) {
      onError(error);
    } finally {
      this.#watching = false;
    }
  }

  /**
   * Whether another instance took the router after this one did (its row names that instance and a later connect);
   * a row still naming an earlier holder is one this process's own connect has yet to overwrite.
   */
  #heldElsewhere(connection: RouterConnection, row: RouterPresenceRow | undefined): boolean {
    if (!row || row.instance_id === null || row.instance_id === this.#options.instanceId) return false;
    return row.connected_at !== null && Date.parse(row.connected_at) >= connection.connectedAt;
  }

  /** The router renewed its certificate over this channel (enrollment extension): the new fingerprint is its own. */
  renewed(routerId: string, fingerprint: string): void {
    if (this.#fingerprints.has(routerId)) this.#fingerprints.set(routerId, fingerprint);
  }

  /** Releases routers held by instances that stopped beating (killed, or cut off from the database). */
  async sweep(): Promise<void> {
    const { store, clock, instanceOfflineAfterMs, onError } = this.#options;
    const since = formatTimestamp(new Date(clock().getTime() - instanceOfflineAfterMs));
    try {
      if (await store.read((db) => hasRoutersOfDeadInstances(db, since)))
        await store.transaction((tx) => releaseRoutersOfDeadInstances(tx, since));
    } catch (error) {
      onError(error);
    }
  }
}
