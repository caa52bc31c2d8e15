// The edge side of the control plane for the routers this process holds (upstream's Broker and InstantStrategy,
// controller/env/broker.go, controller/sync_strats/sync_instant.go): each edge router that connects gets the edge
// hello and the full API-session state; every change in the feed (whichever process made it) is told to each of
// them; their API-session heartbeats keep their clients' sessions alive; a router asking to resync gets the state
// again.
import type { Logger } from 'pino';
import type { Clock } from '../../lib/clock.js';
import { formatTimestamp } from '../../lib/clock.js';
import type { Store } from '../../store/store.js';
import {
  apiSessionIdsByToken,
  existingSessionTokens,
  routerApiSessions,
  type FeedEntry,
} from '../../store/queries/router-sync.js';
import { ChangeFeed } from './change-feed.js';
import {
  apiSessionAdded,
  apiSessionRemoved,
  apiSessionUpdated,
  newSyncId,
  sessionRemoved,
  unknownApiSessions,
  unknownSessions,
  type OutgoingMessage,
} from './edge-messages.js';
import { FULL_STATE_CHUNK, RouterSync, type SyncConnection } from './router-sync.js';
import { SyncStateWriter } from './sync-state-writer.js';
import { SyncSlots } from './sync-slots.js';

/** What the sync needs of the process's router connections (src/fabric/ctrl/router-connections.ts). */
export interface SyncConnections {
  onConnected(listener: (connection: SyncConnection) => void): void;
  onDisconnected(listener: (connection: SyncConnection) => void): void;
}

export interface EdgeSyncOptions {
  store: Store;
  clock: Clock;
  version: string;
  connections: SyncConnections;
  /** Where routers' heartbeats record their clients' activity (ApiSessions.recordActivity). */
  recordActivity: (apiSessionIds: Iterable<string>) => void;
  logger: Logger;
  /** How long a router has to answer the edge hello before it is sent again (default 30 s). */
  helloTimeoutMs?: number;
  feedPollMs?: number;
  /** How many full states are sent at once (upstream's SyncWorkerCount, 10; tests lower it). */
  syncWorkers?: number;
  /** Milliseconds for the feed's gap and pruning ages (tests move it). */
  now?: () => number;
}

/** Removals per message (upstream's router sends up to 10,000 tokens in one heartbeat). */
const REMOVALS_PER_MESSAGE = 1000;

export class EdgeSync {
  readonly #options: EdgeSyncOptions;
  readonly #feed: ChangeFeed;
  readonly #states: SyncStateWriter;
  readonly #slots: SyncSlots;
  /**
   * The edge routers this process holds, by their connection's channel (a router's new connection is a new entry).
   * Those that answered the hello receive every change, after their state.
   */
  readonly #routers = new Map<object, RouterSync>();

  constructor(options: EdgeSyncOptions) {
    this.#options = options;
    this.#states = new SyncStateWriter(options.store);
    this.#slots = new SyncSlots(options.syncWorkers);
    this.#feed = new ChangeFeed({
      store: options.store,
      deliver: (entries) => this.#deliver(entries),
      onError: (error) => options.logger.error({ err: error }, 'could not deliver API-session changes to edge routers'),
      ...(options.now ? { now: options.now } : {}),
      ...(options.feedPollMs ? { pollMs: options.feedPollMs } : {}),
    });
  }

  async start(): Promise<void> {
    await this.#feed.start();
    this.#options.connections.onConnected((connection) => this.#connected(connection));
    this.#options.connections.onDisconnected((connection) => this.#routers.delete(connection.channel));
  }

  /** Looks at the feed now rather than at the next poll (tests). */
  poll(): Promise<void> {
    return this.#feed.poll();
  }

  /** Resolves once everything queued for every router so far has been sent (tests). */
  async idle(): Promise<void> {
    await Promise.all([...this.#routers.values()].map((sync) => sync.enqueue(() => undefined)));
  }

  /** How many full states are being sent now (tests). */
  get fullSyncsInFlight(): number {
    return this.#slots.busy;
  }

  async stop(): Promise<void> {
    await this.#feed.stop();
    this.#routers.clear();
  }

  #connected(connection: SyncConnection): void {
    // Transit routers have no edge: upstream's broker syncs only routers that are edge routers.
    if (!connection.isEdge) return;
    const { store, clock, version, logger } = this.#options;
    const sync = new RouterSync(connection, {
      store,
      clock,
      version,
      logger,
      helloTimeoutMs: this.#options.helloTimeoutMs ?? 30_000,
      slots: this.#slots,
      writeState: (routerId, state) => this.#states.write(routerId, state),
    });
    this.#routers.set(connection.channel, sync);
    void sync.start();
  }

  /** RequestClientReSync (20009): the router wants the API sessions again. */
  resync(channel: object, reason: string): void {
    const sync = this.#routers.get(channel);
    if (!sync) return;
    this.#options.logger.info(
      { routerId: sync.connection.routerId, reason },
      'edge router asked for the API sessions again',
    );
    // Before its hello was answered the router gets the full state anyway.
    if (sync.isSynchronising) sync.resync();
  }

  /**
   * ValidateSessionsRequest (20011): sessions a reconnecting router's clients hold that ended meanwhile are removed
   * (handler_edge_ctrl/validate_sessions.go).
   */
  async validateSessions(channel: object, tokens: readonly string[]): Promise<void> {
    const sync = this.#routers.get(channel);
    if (!sync) return;
    const existing = await this.#options.store.read((db) => existingSessionTokens(db, tokens));
    const ended = tokens.filter((token) => !existing.has(token));
    if (ended.length > 0) void sync.enqueue(() => sync.send(unknownSessions(ended)));
  }

  /**
   * ApiSessionHeartbeat (20008): the router's clients' API sessions were in use: their activity is kept in memory and written with everyone
   * else's (ApiSessions' batched flush), so an SDK that only moves data through the router does not expire. Tokens
   * that no longer exist are removed from the router, as upstream's heartbeat handler does.
   */
  async heartbeat(channel: object, tokens: readonly string[]): Promise<void> {
    const sync = this.#routers.get(channel);
    if (!sync) return;
    const known = await this.#options.store.read((db) => apiSessionIdsByToken(db, tokens));
    this.#options.recordActivity(known.values());
    const unknown = tokens.filter((token) => !known.has(token));
    if (unknown.length > 0) void sync.enqueue(() => sync.send(unknownApiSessions(unknown)));
  }

  /** One round of the feed as messages, built once and queued for every router that is synchronising. */
  async #deliver(entries: FeedEntry[]): Promise<void> {
    const receivers = [...this.#routers.values()].filter((sync) => sync.isSynchronising);
    if (receivers.length === 0) return;
    const messages = await this.#messagesFor(entries);
    for (const sync of receivers) void sync.enqueue(() => messages.forEach((message) => sync.send(message)));
  }

  /**
   * Additions and updates carry the sessions as they are now (one that ended meanwhile is left out: its removal is in
   * the same or a later round); removals follow them, so a session added and ended in one round ends on the router.
   */
  async #messagesFor(entries: FeedEntry[]): Promise<OutgoingMessage[]> {
    const { store, clock } = this.#options;
    const at = formatTimestamp(clock());
    const ids = (kind: FeedEntry['kind']) => [
      ...new Set(entries.filter((entry) => entry.kind === kind).map((entry) => entry.entityId)),
    ];
    const ended = (kind: FeedEntry['kind']) =>
      entries.filter((entry) => entry.kind === kind).map((entry) => ({ id: entry.entityId, token: entry.token }));
    const addedIds = ids('apiSessionAdded');
    const added = await store.read((db) => routerApiSessions(db, at, { ids: addedIds }));
    // A session added in this round is sent as it is now, its certificates included (a cert login records the
    // presented one in the same transaction): an update of it would repeat the addition.
    const addedSet = new Set(addedIds);
    const updatedIds = ids('apiSessionUpdated').filter((id) => !addedSet.has(id));
    const updated = await store.read((db) => routerApiSessions(db, at, { ids: updatedIds }));
    return [
      ...chunks(added, FULL_STATE_CHUNK).map((chunk) =>
        apiSessionAdded(chunk, false, { id: newSyncId(clock()), isLast: true, sequence: 0 }),
      ),
      ...chunks(updated, FULL_STATE_CHUNK).map((chunk) => apiSessionUpdated(chunk)),
      ...chunks(ended('apiSessionRemoved'), REMOVALS_PER_MESSAGE).map((chunk) => apiSessionRemoved(chunk)),
      ...chunks(ended('sessionRemoved'), REMOVALS_PER_MESSAGE).map((chunk) => sessionRemoved(chunk)),
    ];
  }
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const result: T[][] = [];
  for (let start = 0; start < items.length; start += size) result.push(items.slice(start, start + size));
  return result;
}
