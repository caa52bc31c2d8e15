// `ziti fabric stream events`: StreamEventsRequest (10040) subscribes the management channel to the process's events
// (upstream handler_mgmt/stream_events.go); each event goes out as StreamEventsEvent (10041), its body the event's
// JSON, header 10 the formatter's event type. The subscriptions end when the channel closes. The events themselves
// (their shapes, which subscriptions admit which) are the event dispatcher's: this side only carries them.
import { goJsonText } from '../../events/go-json.js';
import { ContentType as MgmtType, Header as MgmtHeader } from '../messages/gen/mgmt_pb.js';
import { encodeString } from '../channel/header-codecs.js';
import { resultMessage, type FabricLogger, type Outgoing } from '../ctrl/router-channel.js';
import { MgmtRequestError, type MgmtChannel } from './mgmt-messages.js';

/** event.Subscription as the CLI sends it: the namespace and its options. */
export interface EventSubscription {
  type: string;
  options?: Readonly<Record<string, unknown>>;
}

/** What a stream needs of an event: its namespace (and a usage event's version) name its type header. */
export interface StreamedEvent {
  namespace: string;
  version?: number;
}

/**
 * Where events come from (the process's event dispatcher). `subscribe` throws to refuse subscriptions whose options
 * are wrong (the CLI is told the message); types it does not know it leaves out, as upstream does.
 */
export interface EventSource {
  subscribe(subscriptions: readonly EventSubscription[], sink: { accept(event: StreamedEvent): void }): Unsubscribe;
}

export interface Unsubscribe {
  unsubscribe(): void;
}

/** StreamEventsRequest's JSON (handler_mgmt/stream_events.go). */
export interface StreamEventsRequest {
  format: string;
  subscriptions: EventSubscription[];
}

/** Upstream's formatter event types (controller/events/formatter.go GetEventType), by namespace. */
const EVENT_TYPES: Readonly<Record<string, string>> = {
  'fabric.circuits': 'circuit',
  'fabric.links': 'link',
  metrics: 'metrics',
  'fabric.routers': 'router',
  services: 'service',
  'fabric.terminators': 'terminator',
  'fabric.usage': 'usage',
  'fabric.cluster': 'cluster',
  entityChange: 'entity.change',
  'edge.sessions': 'session',
  'edge.apiSessions': 'apiSession',
  'edge.entityCounts': 'entityCount',
};

export function eventTypeOf(event: StreamedEvent): string {
  if (event.namespace === 'fabric.usage' && event.version === 3) return 'usage.v3';
  return EVENT_TYPES[event.namespace] ?? event.namespace;
}

/** Reads the request as Go's json.Unmarshal into StreamEventsRequest would (unknown keys ignored, null as absent). */
export function readStreamEventsRequest(body: Uint8Array): StreamEventsRequest {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body).toString('utf8'));
  } catch (error) {
    throw new MgmtRequestError(error instanceof Error ? error.message : String(error));
  }
  if (parsed === null) return { format: '', subscriptions: [] };
  if (!isObject(parsed)) throw new MgmtRequestError('json: cannot unmarshal into Go value of type StreamEventsRequest');
  const format = parsed.format ?? '';
  if (typeof format !== 'string')
    throw new MgmtRequestError('json: cannot unmarshal into Go struct field StreamEventsRequest.format of type string');
  const list = parsed.subscriptions ?? [];
  if (!Array.isArray(list))
    throw new MgmtRequestError('json: cannot unmarshal into Go struct field StreamEventsRequest.subscriptions');
  const subscriptions = list
    .filter((entry) => entry !== null)
    .map((entry: unknown): EventSubscription => {
      const type = isObject(entry) ? (entry.type ?? '') : undefined;
      const options = isObject(entry) ? (entry.options ?? undefined) : null;
      if (typeof type !== 'string' || (options !== undefined && !isObject(options)))
        throw new MgmtRequestError(
          'json: cannot unmarshal into Go struct field Subscription of type event.Subscription',
        );
      return options === undefined ? { type } : { type, options };
    });
  return { format, subscriptions };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Serves StreamEventsRequest: subscribes the channel, and unsubscribes it when it closes. */
export class EventStreams {
  readonly #source: EventSource;
  readonly #logger: FabricLogger;

  constructor(source: EventSource, logger: FabricLogger) {
    this.#source = source;
    this.#logger = logger;
  }

  start(channel: MgmtChannel, request: StreamEventsRequest): Outgoing {
    // Upstream registers one formatter, "json".
    if (request.format !== 'json') throw new MgmtRequestError(`invalid format ['${request.format}']`);
    const sink = {
      accept: (event: StreamedEvent) => {
        if (channel.isClosed) return;
        channel.send({
          contentType: MgmtType.StreamEventsEventType,
          headers: new Map([[MgmtHeader.EventTypeHeader, encodeString(eventTypeOf(event))]]),
          body: encodeString(goJsonText(event)),
        });
      },
    };
    let subscription: Unsubscribe;
    try {
      subscription = this.#source.subscribe(request.subscriptions, sink);
    } catch (error) {
      throw new MgmtRequestError(error instanceof Error ? error.message : String(error));
    }
    void channel.closed.then(() => subscription.unsubscribe());
    this.#logger.info({ types: request.subscriptions.map((entry) => entry.type) }, 'mgmt channel streams events');
    return resultMessage(true, 'success');
  }
}
