// What a subscription asks for, as upstream v1.1.8 reads it (ziti controller/events/dispatcher_*.go register…): a
// type (the namespace) and the options each type takes, checked with upstream's messages. A subscription of an
// unknown type is left out with a warning, as upstream does; bad options of a known type are an error.
import { parseGoDuration } from '../lib/go-format.js';
import { CircuitEventTypes, Namespaces, type ZitiEvent } from './event-types.js';

/** event.Subscription: the type and every other key of its map as options. */
export interface Subscription {
  type: string;
  options?: Readonly<Record<string, unknown>>;
}

export class SubscriptionError extends Error {}

/** What one subscription lets through, by namespace; the dispatcher asks it about events of its own namespace. */
export type Interest =
  | { namespace: 'fabric.circuits'; include: ReadonlySet<string> | undefined }
  | { namespace: 'fabric.links' | 'fabric.routers' | typeof Namespaces.services | 'fabric.cluster' }
  | { namespace: 'fabric.terminators' }
  | { namespace: 'fabric.usage'; version: 2 | 3; include: ReadonlySet<string> | undefined }
  | { namespace: 'metrics'; sourceFilter: RegExp | undefined; metricFilter: RegExp | undefined }
  | {
      namespace: 'entityChange';
      includeParentEvents: boolean;
      entityTypes: ReadonlySet<string> | undefined;
    }
  | { namespace: 'edge.apiSessions' | 'edge.sessions'; include: ReadonlySet<string> | undefined }
  | { namespace: 'edge.entityCounts'; intervalMs: number };

/** The entity types entityChange's `include` may name (upstream's store entity types). */
export type EntityTypeList = readonly string[];

/** Reads one subscription; undefined (and `warn` told) for a type upstream does not know. */
export function readSubscription(
  subscription: Subscription,
  entityTypes: EntityTypeList,
  warn: (message: string) => void,
): Interest | undefined {
  const options = subscription.options ?? {};
  switch (subscription.type) {
    case Namespaces.circuits:
      return { namespace: 'fabric.circuits', include: includeList(options, 'fabric.circuits', CircuitEventTypes) };
    case Namespaces.links:
    case Namespaces.routers:
    case Namespaces.services:
    case Namespaces.cluster:
      return { namespace: subscription.type };
    case Namespaces.terminators:
      booleanOption(options, 'propagateAlways', 'invalid value for propagateAlways, must be boolean or string');
      return { namespace: 'fabric.terminators' };
    case Namespaces.usage:
      return usageInterest(options);
    case Namespaces.metrics:
      return {
        namespace: 'metrics',
        sourceFilter: regexOption(options, 'sourceFilter'),
        metricFilter: regexOption(options, 'metricFilter'),
      };
    case Namespaces.entityChange:
      return entityChangeInterest(options, entityTypes);
    case Namespaces.apiSessions:
    case Namespaces.sessions:
      return {
        namespace: subscription.type,
        include: includeList(options, subscription.type, ['created', 'deleted']),
      };
    case Namespaces.entityCounts:
      return entityCountsInterest(options);
    default:
      warn(`invalid event type ${subscription.type}. valid types are ${Object.values(Namespaces).sort().join(',')}`);
      return undefined;
  }
}

/** Whether the interest takes the event, and in what form (usage v3's `include` narrows the usage map). */
export function admit(interest: Interest, event: ZitiEvent): ZitiEvent | undefined {
  switch (interest.namespace) {
    case 'fabric.circuits':
      return event.namespace === 'fabric.circuits' && (!interest.include || interest.include.has(event.event_type))
        ? event
        : undefined;
    case 'edge.apiSessions':
    case 'edge.sessions':
      return event.namespace === interest.namespace && (!interest.include || interest.include.has(event.event_type))
        ? event
        : undefined;
    case Namespaces.services:
      return event.namespace === 'service.events' ? event : undefined;
    case 'entityChange':
      return admitEntityChange(interest, event);
    case 'fabric.usage':
      return admitUsage(interest, event);
    case 'metrics':
      // Metrics are converted per subscription (metrics-events.ts), never admitted as built events.
      return undefined;
    default:
      return event.namespace === interest.namespace ? event : undefined;
  }
}

function admitEntityChange(
  interest: Extract<Interest, { namespace: 'entityChange' }>,
  event: ZitiEvent,
): ZitiEvent | undefined {
  if (event.namespace !== 'entityChange') return undefined;
  if (event.isParentEvent === true && !interest.includeParentEvents) return undefined;
  if (interest.entityTypes && !interest.entityTypes.has(event.entityType ?? '')) return undefined;
  if (event.eventType !== 'committed') return event;
  // upstream clears a committed event's type and parent flag once its filters have read them.
  const { entityType: _type, isParentEvent: _parent, ...committed } = event;
  return committed;
}

function admitUsage(
  interest: Extract<Interest, { namespace: 'fabric.usage' }>,
  event: ZitiEvent,
): ZitiEvent | undefined {
  if (event.namespace !== 'fabric.usage' || event.version !== interest.version) return undefined;
  if (event.version === 2 || !interest.include) return event;
  const usage = Object.fromEntries(Object.entries(event.usage).filter(([key]) => interest.include?.has(key)));
  const kept = Object.keys(usage).length;
  if (kept === 0) return undefined;
  return kept === Object.keys(event.usage).length ? event : { ...event, usage };
}

function usageInterest(options: Readonly<Record<string, unknown>>): Interest {
  const raw = options.version;
  const text = raw === undefined ? '2' : typeof raw === 'string' || typeof raw === 'number' ? String(raw) : '';
  if (text !== '2' && text !== '3') throw new SubscriptionError(`unsupported usage version: 2`);
  if (text === '2') return { namespace: 'fabric.usage', version: 2, include: undefined };
  if (options.include === undefined) return { namespace: 'fabric.usage', version: 3, include: undefined };
  const include = stringList(options.include, 'usage include list');
  if (include.length === 0)
    throw new SubscriptionError(
      'no values provided in include list for usage events, either drop includes stanza or provide at least one usage type to include',
    );
  return { namespace: 'fabric.usage', version: 3, include: new Set(include) };
}

function entityChangeInterest(options: Readonly<Record<string, unknown>>, entityTypes: EntityTypeList): Interest {
  booleanOption(
    options,
    'propagateAlways',
    'invalid value for entityChange.propagateAlways, must be boolean or string',
  );
  const includeParentEvents = booleanOption(
    options,
    'includeParentEvents',
    'invalid value for entityChange.includeParentEvents, must be boolean or string',
  );
  if (options.include === undefined) return { namespace: 'entityChange', includeParentEvents, entityTypes: undefined };
  const include = stringList(options.include, 'entityChange include list');
  if (include.length === 0)
    throw new SubscriptionError(
      'no values provided in include list for entityChange events, either drop includes stanza or provide at least one entity type to include',
    );
  for (const entityType of include)
    if (!entityTypes.includes(entityType))
      throw new SubscriptionError(
        `invalid entity type [${entityType}] in entityChange events include list, valid values include: [${entityTypes.join(' ')}]`,
      );
  return { namespace: 'entityChange', includeParentEvents, entityTypes: new Set(include) };
}

function entityCountsInterest(options: Readonly<Record<string, unknown>>): Interest {
  let intervalMs = 5 * 60_000;
  if (options.interval !== undefined) {
    if (typeof options.interval !== 'string')
      throw new SubscriptionError(
        `invalid type ${typeof options.interval} for edge.entityCounts interval configuration`,
      );
    const parsed = parseGoDuration(options.interval);
    if ('error' in parsed || parsed.ms <= 0)
      throw new SubscriptionError(
        `invalid duration value for edge.entityCounts interval: '${options.interval}': ${'error' in parsed ? parsed.error : 'must be positive'}`,
      );
    intervalMs = parsed.ms;
  }
  booleanOption(options, 'propagateAlways', 'invalid value for propagateAlways, must be boolean or string');
  return { namespace: 'edge.entityCounts', intervalMs };
}

/** `include` as upstream's circuit and session registrars read it: one string or a list, each a known value. */
function includeList(
  options: Readonly<Record<string, unknown>>,
  namespace: string,
  valid: readonly string[],
): ReadonlySet<string> | undefined {
  const raw = options.include;
  if (raw === undefined) return undefined;
  let values: string[];
  if (typeof raw === 'string') values = [raw];
  else if (Array.isArray(raw)) values = raw.map((value) => String(value));
  else throw new SubscriptionError(`invalid type ${typeof raw} for ${namespace} include configuration`);
  if (values.length === 0) return undefined;
  for (const value of values)
    if (!valid.includes(value))
      throw new SubscriptionError(`invalid include ${value} for ${namespace}. valid values are [${valid.join(' ')}]`);
  return new Set(values);
}

function stringList(raw: unknown, what: string): string[] {
  const values = Array.isArray(raw) ? raw.filter((value): value is string => typeof value === 'string') : [];
  if (!Array.isArray(raw) || values.length !== raw.length)
    throw new SubscriptionError(`invalid value type for ${what}, must be string list`);
  return values;
}

function booleanOption(options: Readonly<Record<string, unknown>>, key: string, message: string): boolean {
  const raw = options[key];
  if (raw === undefined) return false;
  if (typeof raw === 'boolean') return raw;
  if (typeof raw === 'string') return raw.toLowerCase() === 'true';
  throw new SubscriptionError(message);
}

function regexOption(options: Readonly<Record<string, unknown>>, key: string): RegExp | undefined {
  const raw = options[key];
  if (raw === undefined || raw === '') return undefined;
  if (typeof raw !== 'string')
    throw new SubscriptionError(`invalid ${key} value ${JSON.stringify(raw)} of type ${typeof raw}. must be string`);
  try {
    return new RegExp(raw);
  } catch (error) {
    throw new SubscriptionError(`invalid ${key} ${raw}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
