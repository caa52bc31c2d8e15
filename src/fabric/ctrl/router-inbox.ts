// Route messages for routers held by other processes (docs/reference/router-control-plane-links.md §5.8): the
// RouteMessenger every circuit uses reaches a router on this process's channel when it holds it, otherwise through a
// router_inbox row addressed to the instance that does. That instance polls for its rows (one indexed probe every
// `pollMs`), sends each message on the router's channel and writes the router's reply into the row; the sender polls
// its row for the reply until its timeout. Bounded: at most `maxPending` undelivered rows per instance (past it a
// message is refused at once), a request gives up at its timeout (its row goes), and rows older than `maxAgeMs` or of
// instances no longer beating are swept. A message may also be for an instance itself rather than one of its routers
// (an operator's removal of a circuit another process owns): its row names no router, and the instance's handler for
// its content type answers it.
import type { Clock } from '../../lib/clock.js';
import { formatTimestamp } from '../../lib/clock.js';
import { newCuid } from '../../lib/ids.js';
import { liveControllerInstances } from '../../store/queries/cluster.js';
import { sweepFabricCircuits } from '../../store/queries/fabric-circuits.js';
import { heldRouters } from '../../store/queries/router-presence.js';
import {
  addInboxRow,
  answerInboxRow,
  hasPendingInbox,
  inboxAnswer,
  pendingInboxCount,
  pendingInboxRows,
  removeInboxRow,
  sweepInbox,
  type InboxRow,
} from '../../store/queries/router-inbox.js';
import { writeAreas, type Db, type Store } from '../../store/store.js';
import type { Message } from '../channel/message.js';
import { RouterNotHeldError, type HeldChannels } from './messenger.js';
import type { RouteMessenger } from '../circuits/reroute.js';
import { decodeInboxMessage as decode, encodeInboxMessage as encode, type Outgoing } from './inbox-messages.js';

export interface RouterInboxOptions {
  store: Store;
  clock: Clock;
  instanceId: string;
  routers: HeldChannels;
  /** Whether this process holds any router: only then can rows be addressed to it, so only then does it poll. */
  holdsAny: () => boolean;
  /** An instance not seen for this long is dead (system/instance-heartbeat.ts OFFLINE_AFTER_MS). */
  instanceOfflineAfterMs: number;
  logger: { warn(fields: object, message: string): void };
  /** How often the holder looks for rows addressed to it, and the sender for its reply (default 10 ms, 2 ms). */
  pollMs?: number;
  replyPollMs?: number;
  maxPending?: number;
  maxAgeMs?: number;
}

/** Inbox rows are bookkeeping: no cache holds them, so no instance drops its caches for them. */
const BOOKKEEPING = { bookkeeping: true, touches: writeAreas.rowsOnly };
/** How often a process holding routers reads whether any other instance lives. */
const OTHERS_CHECK_MS = 1000;
const TAKE_AT_ONCE = 100;
/** The router a message for the instance itself names: none (router ids are never empty). */
const THE_INSTANCE = '';

/** Reaches another controller instance (through its inbox): its handler's reply, or a rejection past the timeout. */
export interface InstanceMessenger {
  request(instanceId: string, message: Outgoing, timeoutMs: number): Promise<Message>;
}

type InstanceHandler = (message: Outgoing) => Promise<Outgoing>;

export class RouterInbox {
  readonly #options: RouterInboxOptions;
  readonly #pollMs: number;
  readonly #replyPollMs: number;
  #timer: NodeJS.Timeout | undefined;
  #sweeper: NodeJS.Timeout | undefined;
  #polling: Promise<void> | undefined;
  /** The messages being served now, awaited by stop(). */
  readonly #serving = new Set<Promise<void>>();
  #stopped = false;
  /** Whether another live instance could address rows here, and when that was last read. */
  #othersLive = false;
  #othersCheckedAt = Number.NEGATIVE_INFINITY;
  /** Rows being delivered now (read, not yet answered or removed): not delivered twice. */
  readonly #delivering = new Set<string>();
  readonly messenger: RouteMessenger;
  readonly instances: InstanceMessenger = {
    request: (instanceId, message, timeoutMs) => this.#post(instanceId, THE_INSTANCE, message, timeoutMs),
  };
  /** What this instance answers itself, by content type; and whether others may address it now. */
  readonly #handlers = new Map<number, InstanceHandler>();
  #addressable: () => boolean = () => false;

  constructor(options: RouterInboxOptions) {
    this.#options = options;
    this.#pollMs = options.pollMs ?? 10;
    this.#replyPollMs = options.replyPollMs ?? 2;
    const local = (routerId: string) => options.routers.get(routerId)?.channel;
    this.messenger = {
      request: (routerId, message, timeoutMs) =>
        local(routerId)?.request(message, timeoutMs) ?? this.#remote(routerId, message, timeoutMs),
      send: async (routerId, message) => {
        const channel = local(routerId);
        if (channel) channel.send(message);
        else await this.#remote(routerId, message, 0);
      },
    };
  }

  /**
   * Answers messages addressed to this instance itself with `handler`, by content type. `addressable` says whether
   * another instance may address one here now (polling costs nothing while neither it nor holding routers does).
   */
  serveInstance(contentType: number, handler: InstanceHandler, addressable: () => boolean): void {
    this.#handlers.set(contentType, handler);
    const before = this.#addressable;
    this.#addressable = () => before() || addressable();
  }

  start(): void {
    this.#stopped = false;
    this.#timer ??= setInterval(() => void this.deliver(), this.#pollMs).unref();
    this.#sweeper ??= setInterval(() => void this.sweep(), 10_000).unref();
  }

  /** Stops looking for rows and waits for the look and the messages under way (a row is not served after it). */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    clearInterval(this.#sweeper);
    this.#timer = this.#sweeper = undefined;
    await this.#polling;
    await Promise.all(this.#serving);
  }

  /** One look for rows addressed here: each message sent on its router's channel, a request's reply written back. */
  deliver(): Promise<void> {
    const addressable = this.#options.holdsAny() || this.#addressable();
    if (this.#polling || this.#stopped || !addressable) return this.#polling ?? Promise.resolve();
    this.#polling = this.#look().finally(() => (this.#polling = undefined));
    return this.#polling;
  }

  async #look(): Promise<void> {
    const { store, instanceId, clock, instanceOfflineAfterMs } = this.#options;
    try {
      // Only another instance writes rows here: alone, the 10 ms look would be a query a hundred times a second for
      // nothing, so whether others live is read once a second (a newcomer's first message waits at most that long).
      const now = Date.now();
      if (now - this.#othersCheckedAt >= OTHERS_CHECK_MS) {
        this.#othersCheckedAt = now;
        const since = formatTimestamp(new Date(clock().getTime() - instanceOfflineAfterMs));
        const live = await store.read((db) => liveControllerInstances(db, since));
        this.#othersLive = live.some((instance) => instance.id !== instanceId);
      }
      if (!this.#othersLive) return;
      if (!(await store.read((db) => hasPendingInbox(db, instanceId)))) return;
      const rows = await store.read((db) => pendingInboxRows(db, instanceId, TAKE_AT_ONCE, [...this.#delivering]));
      for (const row of rows) {
        if (this.#stopped) return;
        this.#delivering.add(row.id);
        const serving: Promise<void> = this.#serve(row).finally(() => {
          this.#delivering.delete(row.id);
          this.#serving.delete(serving);
        });
        this.#serving.add(serving);
      }
    } catch (error) {
      this.#warn(undefined, error);
    }
  }

  /** Rows nobody will read any more: too old, or of instances that stopped beating; their circuits' rows too. */
  async sweep(): Promise<void> {
    const { store, clock, instanceOfflineAfterMs, maxAgeMs = 120_000 } = this.#options;
    const now = clock().getTime();
    try {
      const live = (
        await store.read((db) => liveControllerInstances(db, formatTimestamp(new Date(now - instanceOfflineAfterMs))))
      ).map((row) => row.id);
      await store.transaction(async (tx) => {
        await sweepInbox(tx, formatTimestamp(new Date(now - maxAgeMs)), live);
        await sweepFabricCircuits(tx, live);
      }, BOOKKEEPING);
    } catch (error) {
      this.#warn(undefined, error);
    }
  }

  async #serve(row: InboxRow): Promise<void> {
    const { store, routers } = this.#options;
    let answer: { state: 'replied' | 'failed'; reply: string } | undefined;
    try {
      const message = decode(row.message);
      if (row.routerId === THE_INSTANCE) {
        const handler = this.#handlers.get(message.contentType);
        if (!handler) throw new Error(`this instance answers no message of content type ${message.contentType}`);
        const reply = await handler(message);
        if (row.timeoutMs !== 0) answer = { state: 'replied', reply: encode(reply) };
      } else {
        const channel = routers.get(row.routerId)?.channel;
        if (!channel) throw new RouterNotHeldError(row.routerId);
        if (row.timeoutMs === 0) channel.send(message);
        else answer = { state: 'replied', reply: encode(await channel.request(message, row.timeoutMs)) };
      }
    } catch (error) {
      if (row.timeoutMs !== 0)
        answer = { state: 'failed', reply: error instanceof Error ? error.message : String(error) };
      else this.#warn(row.routerId, error);
    }
    // A send awaits nothing: its row is done once sent.
    const done = (tx: Db) =>
      answer ? answerInboxRow(tx, row.id, answer.state, answer.reply) : removeInboxRow(tx, row.id);
    await store.transaction(done, BOOKKEEPING).catch((error: unknown) => this.#warn(row.routerId, error));
  }

  /** A message to a router another instance holds; with a timeout, its reply (0: nothing awaited). */
  async #remote(routerId: string, message: Outgoing, timeoutMs: number): Promise<Message> {
    const { store, clock, instanceId, instanceOfflineAfterMs } = this.#options;
    const since = formatTimestamp(new Date(clock().getTime() - instanceOfflineAfterMs));
    const holder = (await store.read((db) => heldRouters(db, [routerId], since))).get(routerId)?.instanceId;
    if (!holder || holder === instanceId) throw new RouterNotHeldError(routerId);
    return this.#post(holder, routerId, message, timeoutMs);
  }

  /** A row for `holder` (for its router `routerId`, or for itself); with a timeout, the reply awaited. */
  async #post(holder: string, routerId: string, message: Outgoing, timeoutMs: number): Promise<Message> {
    const { store, clock, instanceId, maxPending = 10_000 } = this.#options;
    const to =
      routerId === THE_INSTANCE
        ? `controller instance ${holder}`
        : `router ${routerId} on controller instance ${holder}`;
    const id = newCuid();
    const row = {
      id,
      instanceId: holder,
      senderInstanceId: instanceId,
      routerId,
      message: encode(message),
      timeoutMs,
      createdAt: formatTimestamp(clock()),
    };
    await store.transaction(async (tx) => {
      if ((await pendingInboxCount(tx, holder)) >= maxPending)
        throw new Error(`the inbox of controller instance ${holder} is full (${maxPending} messages undelivered)`);
      await addInboxRow(tx, row);
    }, BOOKKEEPING);
    if (timeoutMs === 0) return { contentType: 0, sequence: 0, headers: new Map(), body: new Uint8Array(0) };
    const deadline = Date.now() + timeoutMs;
    try {
      while (Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, this.#replyPollMs));
        const answer = await store.read((db) => inboxAnswer(db, id));
        if (answer?.state === 'replied' && answer.reply !== null) return { ...decode(answer.reply), sequence: 0 };
        if (answer?.state === 'failed') throw new Error(`${to}: ${answer.reply ?? 'failed'}`);
      }
      throw new Error(`no reply from ${to} within ${timeoutMs} ms`);
    } finally {
      // Not awaited: the reply is in hand, and a row left behind is swept.
      void store
        .transaction((tx) => removeInboxRow(tx, id), BOOKKEEPING)
        .catch((error: unknown) => this.#warn(routerId, error));
    }
  }

  #warn(routerId: string | undefined, error: unknown): void {
    this.#options.logger.warn(
      { routerId, reason: error instanceof Error ? error.message : String(error) },
      'router inbox: message not delivered',
    );
  }
}
