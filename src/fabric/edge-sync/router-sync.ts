// One edge router's API-session sync, as upstream's instant strategy runs it (controller/sync_strats/
// sync_instant.go): the edge hello, then the full state in chunks, then the changes as they come, all in order on
// one queue so a change never overtakes the state it changes. What the hello and sync reached is written to the
// router's presence row only when it changes (a handful of writes per connection, none while it stays connected).
import type { Logger } from 'pino';
import type { Clock } from '../../lib/clock.js';
import { formatTimestamp } from '../../lib/clock.js';
import type { Store } from '../../store/store.js';
import { routerApiSessions, type RouterSyncState } from '../../store/queries/router-sync.js';
import type { Channel } from '../channel/channel.js';
import type { ControlChannel } from '../ctrl/router-channel.js';
import { ContentType } from '../messages/gen/edge_ctrl_pb.js';
import {
  apiSessionAdded,
  newSyncId,
  readClientHello,
  serverHello,
  type OutgoingMessage,
  type RouterEdgeHello,
} from './edge-messages.js';
import { mustAt } from '../../lib/collections.js';
import type { SyncSlots } from './sync-slots.js';

/**
 * What the sync needs of a router's channel: to send, to ask, to wait for the router to read what it was sent
 * (Channel.drained), and to know when it closed.
 */
export type SyncChannel = Pick<ControlChannel, 'send' | 'request'> &
  Pick<Channel, 'drained'> & {
    readonly closed: Promise<void>;
    /** True from the moment it closes (`closed` resolves a turn later, after pending requests have failed). */
    readonly isClosed: boolean;
  };

/** A connected router as the sync sees it (src/fabric/ctrl/router-connections.ts provides it). */
export interface SyncConnection {
  routerId: string;
  isEdge: boolean;
  channel: SyncChannel;
}

/** A frame's content type is any number; the enum names the one expected (lint refuses a mixed comparison). */
const CLIENT_HELLO: number = ContentType.ClientHelloType;

/** Upstream's chunk size for the full state (sync_instant.go synchronize). */
export const FULL_STATE_CHUNK = 100;

export interface RouterSyncContext {
  store: Store;
  clock: Clock;
  /** The controller version the ServerHello names. */
  version: string;
  logger: Logger;
  helloTimeoutMs: number;
  /** The process's bounded pool for full states (shared by every router it holds). */
  slots: SyncSlots;
  /** Stores what the hello and sync reached (batched with other routers'). */
  writeState: (routerId: string, state: RouterSyncState) => Promise<void>;
}

export class RouterSync {
  readonly connection: SyncConnection;
  readonly #context: RouterSyncContext;
  #queue: Promise<void> = Promise.resolve();
  #isClosed = false;
  #isSynchronising = false;
  #isResyncQueued = false;
  #hello: RouterEdgeHello | undefined;
  /** The status last written, so an unchanged one is not written again. */
  #written: string | undefined;

  constructor(connection: SyncConnection, context: RouterSyncContext) {
    this.connection = connection;
    this.#context = context;
    void connection.channel.closed.then(() => (this.#isClosed = true));
  }

  /** The router answered the hello: from then on it receives every change, queued after its full state. */
  get isSynchronising(): boolean {
    return this.#isSynchronising && !this.#isClosed;
  }

  /** Runs `task` after everything queued before it. */
  enqueue(task: () => Promise<void> | void): Promise<void> {
    this.#queue = this.#queue.then(task).catch((error: unknown) => {
      this.#context.logger.error({ err: error, routerId: this.connection.routerId }, 'edge router sync failed');
      return this.#record({ syncStatus: 'SYNC_ERROR' }).catch((recordError: unknown) =>
        this.#context.logger.error(
          { err: recordError, routerId: this.connection.routerId },
          'could not record the edge router’s sync error',
        ),
      );
    });
    return this.#queue;
  }

  /** Sends, unless the channel has closed meanwhile (what it would have said no longer matters). */
  send(message: OutgoingMessage): void {
    if (!this.#isClosed) this.connection.channel.send(message);
  }

  /** The edge hello, then the full state. */
  start(): Promise<void> {
    return this.enqueue(async () => {
      if (!(await this.#exchangeHellos())) return;
      this.#isSynchronising = true;
      await this.sendFullState();
    });
  }

  /**
   * Sends the ServerHello until the router answers (upstream queues it again after a timeout) or goes. An answer
   * that is not a ClientHello, or does not parse, fails the sync (SYNC_ERROR) rather than being asked for again.
   */
  async #exchangeHellos(): Promise<boolean> {
    const { version, helloTimeoutMs, logger } = this.#context;
    while (!this.#isClosed) {
      let reply: { contentType: number; body: Uint8Array };
      try {
        reply = await this.connection.channel.request(serverHello(version), helloTimeoutMs);
      } catch (error) {
        // A router that leaves before answering fails the request before `closed` has resolved: that is no timeout.
        if (this.#isClosed || this.connection.channel.isClosed) return false;
        logger.warn(
          { err: error, routerId: this.connection.routerId },
          'edge router did not answer the hello, sending it again',
        );
        await this.#record({ syncStatus: 'SYNC_HELLO_TIMEOUT' });
        continue;
      }
      if (reply.contentType !== CLIENT_HELLO)
        throw new Error(`edge router answered the hello with content type ${reply.contentType}`);
      this.#hello = readClientHello(reply.body);
      logger.info({ routerId: this.connection.routerId, ...this.#hello }, 'edge router sent its hello');
      return true;
    }
    return false;
  }

  /**
   * Every API session a router may know, in chunks of 100 with one sync id and increasing sequences, the last
   * marked isLast: the router applies the state (and drops sessions it knew that are not in it) only once it holds
   * every chunk up to the last. An empty state is one empty last chunk, so a reconnecting router still drops what it
   * knew (upstream sends nothing then, and the router keeps stale sessions).
   */
  sendFullState(): Promise<void> {
    // In a slot of the process's pool, waiting for the router to read each chunk before the next is read: at most
    // `slots` states are in flight, each holding a chunk or two, however many routers connect together.
    return this.#context.slots.run(this.connection.channel.closed, async () => {
      const { store, clock } = this.#context;
      const id = newSyncId(clock());
      const at = formatTimestamp(clock());
      const page = (afterId: string) =>
        store.read((db) => routerApiSessions(db, at, { afterId, limit: FULL_STATE_CHUNK }));
      let chunk = await page('');
      for (let sequence = 0; !this.#isGone(); sequence++) {
        const next = chunk.length === FULL_STATE_CHUNK ? await page(mustAt(chunk, -1).id) : [];
        this.send(apiSessionAdded(chunk, true, { id, isLast: next.length === 0, sequence }));
        if (next.length === 0) break;
        await this.connection.channel.drained();
        chunk = next;
      }
      if (!this.#isGone()) await this.#record({ syncStatus: 'SYNC_DONE' });
    });
  }

  /** Closed, or closing (the channel knows a turn before `closed` resolves). */
  #isGone(): boolean {
    return this.#isClosed || this.connection.channel.isClosed;
  }

  /**
   * The full state again, after what is queued (the router asked: RequestClientReSync). Requests made while one is
   * still waiting its turn share it, so a router asking over and over costs one state at a time.
   */
  resync(): void {
    if (this.#isResyncQueued) return;
    this.#isResyncQueued = true;
    void this.enqueue(() => {
      this.#isResyncQueued = false;
      return this.sendFullState();
    });
  }

  /** Writes the status (with what the hello said) when it differs from what was written last. */
  async #record(state: Pick<RouterSyncState, 'syncStatus'>): Promise<void> {
    if (this.#written === state.syncStatus || this.#isClosed) return;
    const full: RouterSyncState = {
      ...state,
      ...(this.#hello ? { hostname: this.#hello.hostname, supportedProtocols: this.#hello.supportedProtocols } : {}),
    };
    await this.#context.writeState(this.connection.routerId, full);
    this.#written = state.syncStatus;
  }
}
