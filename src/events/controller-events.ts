// A process's events (issue 31), assembled: the dispatcher, the entity change log around the store, the fabric's
// facts, the routers' metrics, the configured handlers (`events:`), entity counts and the record's retention.
import type { Registry } from 'prom-client';
import type { Logger } from 'pino';
import type { Clock } from '../lib/clock.js';
import { formatTimestamp } from '../lib/clock.js';
import type { FabricEvents } from '../fabric/fabric-events.js';
import { pruneEntityChanges } from '../store/queries/entity-changes.js';
import { summaryCounts } from '../store/queries/summary.js';
import type { Store } from '../store/store.js';
import type { EventsSettings } from '../settings/events.settings.js';
import { EventDispatcher, type EventSink } from './dispatcher.js';
import { edgeSessionEvent } from './edge-session-events.js';
import { EntityChangeLog, type CommittedChange } from './entity-change-log.js';
import { EntityTypes, UPSTREAM_ENTITY_TYPES } from './entity-types.js';
import { goJsonTime } from './event-types.js';
import { fabricEvents } from './fabric-events.js';
import { openLoggers, type OpenLogger } from './loggers.js';
import type { LinkEnds } from './metrics-events.js';
import { RouterMetrics } from './router-metrics.js';
import { ServiceCounters } from './service-counters.js';
import { TerminatorEvents } from './terminator-events.js';
import type { Interest } from './subscriptions.js';

export interface ControllerEventsOptions {
  settings: EventsSettings;
  clock: Clock;
  logger: Logger;
  instanceId: string;
  /** Its wire version is every entity change's `version` metadata, as upstream's global metadata. */
  build: { wireVersion: string };
  /** The metrics registry, when a metrics listener is configured: the routers' metrics join it. */
  registry: Registry | undefined;
}

/** What the events read of the network once it exists (links and presence are made after the store). */
export interface NetworkFacts {
  table: { get(linkId: string): { srcRouterId: string; dstRouterId: string } | undefined };
  isOnline(routerId: string): boolean;
}

const PRUNE_EVERY_MS = 60 * 60_000;

export class ControllerEvents {
  readonly dispatcher: EventDispatcher;
  readonly changeLog: EntityChangeLog;
  readonly fabric: FabricEvents;
  readonly #options: ControllerEventsOptions;
  readonly #services: ServiceCounters;
  readonly #routerMetrics: RouterMetrics | undefined;
  #network: NetworkFacts = { table: { get: () => undefined }, isOnline: () => false };
  #terminators: TerminatorEvents | undefined;
  #loggers: OpenLogger[] = [];
  #timers: NodeJS.Timeout[] = [];
  readonly #countsDue = new WeakMap<Interest, number>();

  constructor(options: ControllerEventsOptions) {
    this.#options = options;
    const { clock, logger } = options;
    this.dispatcher = new EventDispatcher({
      entityTypes: UPSTREAM_ENTITY_TYPES,
      warn: (message, fields) => logger.warn(fields ?? {}, message),
      linkEnds: (linkId) => this.#linkEnds(linkId),
    });
    this.changeLog = new EntityChangeLog({
      clock,
      instanceId: options.instanceId,
      version: options.build.wireVersion,
      emit: (change) => this.#entityChanged(change),
    });
    this.#services = new ServiceCounters(this.dispatcher, clock);
    this.#routerMetrics = options.registry
      ? new RouterMetrics(options.registry, (linkId) => this.#linkEnds(linkId))
      : undefined;
    this.fabric = fabricEvents({
      dispatcher: this.dispatcher,
      clock,
      services: this.#services,
      ...(this.#routerMetrics
        ? { onRouterMetrics: (routerId, message) => this.#routerMetrics?.accept(routerId, message) }
        : {}),
    });
  }

  /**
   * Starts: the configured handlers open and subscribe (a handler that cannot open, or a subscription upstream
   * would refuse, fails the start), then the timers. `store` is the wrapped one; `routers` the connections held here.
   */
  async start(
    store: Store,
    network: NetworkFacts,
    routers: {
      get(routerId: string): { channel: { addresses: { local: string; remote: string } } } | undefined;
      onConnected(listener: (connection: { routerId: string }) => void): void;
      onDisconnected(listener: (connection: { routerId: string }) => void): void;
    },
  ): Promise<void> {
    const { clock, logger, settings } = this.#options;
    this.#network = network;
    this.#terminators = new TerminatorEvents({
      dispatcher: this.dispatcher,
      store,
      clock,
      isOnline: (routerId) => network.isOnline(routerId),
      warn: (fields, message) => logger.warn(fields, message),
    });
    this.changeLog.channelAddresses = (routerId) => routers.get(routerId)?.channel.addresses;
    routers.onConnected(({ routerId }) => this.#terminators?.routerPresence(routerId, true));
    routers.onDisconnected(({ routerId }) => {
      this.#routerMetrics?.forget(routerId);
      this.#terminators?.routerPresence(routerId, false);
    });
    this.#loggers = await openLoggers(settings.eventLoggers, this.dispatcher, logger);
    this.#services.start();
    this.#timers.push(setInterval(() => void this.reportEntityCounts(store), 1_000).unref());
    const prune = () =>
      void store
        .transaction(
          (tx) =>
            pruneEntityChanges(tx, formatTimestamp(new Date(clock().getTime() - settings.entityChangeRetentionMs))),
          { bookkeeping: true },
        )
        .catch((error: unknown) => logger.warn({ err: error }, 'could not prune the record of entity changes'));
    prune();
    this.#timers.push(setInterval(prune, PRUNE_EVERY_MS).unref());
  }

  async stop(): Promise<void> {
    for (const timer of this.#timers) clearInterval(timer);
    this.#timers = [];
    this.#services.stop();
    for (const logger of this.#loggers) logger.close();
    await Promise.all(this.#loggers.map((logger) => logger.closed));
    this.#loggers = [];
  }

  /** A link's routers, if this process knows the link (link metrics' tags). */
  #linkEnds(linkId: string): ReturnType<LinkEnds> {
    const link = this.#network.table.get(linkId);
    return link && { srcRouterId: link.srcRouterId, dstRouterId: link.dstRouterId };
  }

  #entityChanged({ event, fact }: CommittedChange): void {
    this.dispatcher.emit(event);
    if (event.eventType === 'committed') return;
    const session = edgeSessionEvent(fact, event.timestamp);
    if (session) this.dispatcher.emit(session);
    if (fact.entityType === EntityTypes.terminators) {
      const state = fact.changeType === 'deleted' ? fact.before : fact.after;
      if (state) this.#terminators?.changed(fact.changeType, state);
    }
  }

  /** edge.entityCounts: each subscription on its own interval, one count of the store shared by those due. */
  async reportEntityCounts(store: Store): Promise<void> {
    const now = this.#options.clock().getTime();
    const due: { interest: Interest; sink: EventSink }[] = [];
    for (const entry of this.dispatcher.interestsIn('edge.entityCounts')) {
      const next = this.#countsDue.get(entry.interest);
      if (next !== undefined && now < next) continue;
      this.#countsDue.set(entry.interest, (next ?? now) + entry.interest.intervalMs);
      due.push(entry);
    }
    if (due.length === 0) return;
    let counts: Record<string, number> | null = null;
    let error = '';
    try {
      counts = await store.read(summaryCounts);
    } catch (caught) {
      error = caught instanceof Error ? caught.message : String(caught);
    }
    const event = {
      namespace: 'edge.entityCounts' as const,
      timestamp: goJsonTime(this.#options.clock()),
      counts,
      error,
    };
    for (const { sink } of due) sink.accept(event);
  }
}
