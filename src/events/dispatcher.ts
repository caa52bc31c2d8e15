// The one event dispatcher of a process (docs/design.md part 0, "Events"): whoever sees a fact happen hands it here,
// and each subscriber (a configured handler, a management-channel stream) gets the events its subscriptions admit,
// as upstream's JSON objects. Emitting never waits and never throws: a sink that cannot keep up drops (sinks.ts).
import { randomUUID } from 'node:crypto';
import type { MetricsMessage } from '../fabric/messages/gen/metrics_pb.js';
import { Namespaces, type ZitiEvent } from './event-types.js';
import { metricsEvents, usageEventsV2, usageEventsV3, type LinkEnds } from './metrics-events.js';
import { admit, readSubscription, type Interest, type Subscription } from './subscriptions.js';

/** Where a subscriber's events go. `accept` must return at once (queue, never block). */
export interface EventSink {
  accept(event: ZitiEvent): void;
}

export interface EventSubscriber {
  /** Stops the events; the sink is not closed (its owner closes it). */
  unsubscribe(): void;
  /** The subscriptions it holds, as read (unknown types left out). */
  readonly interests: readonly Interest[];
}

export interface DispatcherOptions {
  /** The entity types entityChange subscriptions may include (upstream's store entity types). */
  entityTypes: readonly string[];
  warn(message: string, fields?: object): void;
  /** A link's routers, for link metrics' tags; unknown links get none. */
  linkEnds?: LinkEnds;
}

interface Registered {
  sink: EventSink;
  interests: readonly Interest[];
}

export class EventDispatcher {
  readonly #options: DispatcherOptions;
  readonly #subscribers = new Set<Registered>();

  constructor(options: DispatcherOptions) {
    this.#options = options;
  }

  /**
   * Subscribes `sink` to the events `subscriptions` ask for (upstream's ProcessSubscriptions: a type it does not know
   * is left out with a warning; bad options throw SubscriptionError and nothing is subscribed).
   */
  subscribe(subscriptions: readonly Subscription[], sink: EventSink): EventSubscriber {
    const interests = subscriptions
      .map((subscription) =>
        readSubscription(subscription, this.#options.entityTypes, (message) =>
          this.#options.warn(message, { type: subscription.type }),
        ),
      )
      .filter((interest): interest is Interest => interest !== undefined);
    const registered: Registered = { sink, interests };
    this.#subscribers.add(registered);
    return { interests, unsubscribe: () => this.#subscribers.delete(registered) };
  }

  /** Whether any subscriber wants events of `namespace` (so their facts need not be gathered otherwise). */
  wants(namespace: string): boolean {
    for (const { interests } of this.#subscribers)
      for (const interest of interests)
        if (
          interest.namespace === namespace ||
          (namespace === 'service.events' && interest.namespace === Namespaces.services)
        )
          return true;
    return false;
  }

  /** The subscribers' interests of one namespace, with their sinks (for events made per subscriber: entity counts). */
  interestsIn<N extends Interest['namespace']>(
    namespace: N,
  ): { interest: Extract<Interest, { namespace: N }>; sink: EventSink }[] {
    const found: { interest: Extract<Interest, { namespace: N }>; sink: EventSink }[] = [];
    for (const { interests, sink } of this.#subscribers)
      for (const interest of interests) if (isIn(interest, namespace)) found.push({ interest, sink });
    return found;
  }

  /**
   * Hands one event to every subscription that admits it: a subscriber with two subscriptions that both admit an
   * event gets it twice, as upstream registers a handler once per subscription.
   */
  emit(event: ZitiEvent): void {
    for (const { interests, sink } of this.#subscribers) {
      for (const interest of interests) {
        const admitted = admit(interest, event);
        if (admitted) sink.accept(admitted);
      }
    }
  }

  /**
   * A router's Metrics message (1007): `metrics` events per subscription's filters, `fabric.usage` events in the
   * versions subscribed. `routerId` is the channel's router: the message's own sourceId is not trusted over it.
   */
  routerMetrics(routerId: string, message: MetricsMessage): void {
    if (this.#subscribers.size === 0) return;
    const trusted: MetricsMessage = { ...message, sourceId: routerId };
    const sourceEventId = randomUUID();
    const linkEnds = this.#options.linkEnds ?? (() => undefined);
    for (const { interest, sink } of this.interestsIn('metrics'))
      for (const event of metricsEvents(trusted, interest, sourceEventId, linkEnds)) sink.accept(event);
    if (this.wants('fabric.usage')) {
      const wantsV3 = this.interestsIn('fabric.usage').some(({ interest }) => interest.version === 3);
      for (const event of usageEventsV2(trusted)) this.emit(event);
      if (wantsV3) for (const event of usageEventsV3(trusted)) this.emit(event);
    }
  }
}

function isIn<N extends Interest['namespace']>(
  interest: Interest,
  namespace: N,
): interest is Extract<Interest, { namespace: N }> {
  return interest.namespace === namespace;
}
