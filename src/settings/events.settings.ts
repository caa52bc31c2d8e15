// Events (issue 31): upstream's `events:` section as its docs write it, read unchanged. Each named logger has a list
// of subscriptions (a type and that type's options, checked against upstream's rules when the controller starts)
// and a handler: `file` (format json, path, maxsizemb, maxbackups), `stdout`, or `amqp` (url, queue, durable,
// autoDelete, exclusive, noWait). Beside it, how long the record of entity changes is kept (an extension).
import { isJsonObject } from '../lib/object-path.js';
import { duration, type Parse, type SettingSpec } from './setting-spec.js';

export interface EventSubscriptionSetting {
  type: string;
  /** Every other key of the subscription's map (upstream: `options`). */
  options: Record<string, unknown>;
}

export type EventHandlerSetting =
  | { type: 'file'; path: string; maxSizeMb: number; maxBackups: number; bufferSize: number | undefined }
  | { type: 'stdout'; bufferSize: number | undefined }
  | {
      type: 'amqp';
      url: string;
      queue: string;
      durable: boolean;
      autoDelete: boolean;
      exclusive: boolean;
      bufferSize: number | undefined;
    };

export interface EventLoggerSetting {
  name: string;
  subscriptions: EventSubscriptionSetting[];
  handler: EventHandlerSetting;
}

export interface EventsSettings {
  /** The named event loggers of `events:`; empty: events go only to management-channel subscribers. */
  eventLoggers: EventLoggerSetting[];
  /** How long the record of entity changes (GET /edge/management/v1/entity-changes) keeps each change. */
  entityChangeRetentionMs: number;
}

/** `events:` → the loggers, with upstream's messages for what it refuses (events/dispatcher.go, file_logger.go). */
export const eventLoggers: Parse<EventLoggerSetting[]> = (raw) => {
  if (!isJsonObject(raw)) throw new Error('must be a map of named event loggers');
  return Object.entries(raw).map(([name, value]) => {
    if (!isJsonObject(value)) throw new Error(`event configuration for ${name} is not a map`);
    return { name, subscriptions: subscriptionsOf(name, value.subscriptions), handler: handlerOf(name, value.handler) };
  });
};

function subscriptionsOf(name: string, raw: unknown): EventSubscriptionSetting[] {
  if (raw === undefined) throw new Error(`event handler ${name} doesn't define any subscriptions`);
  if (!Array.isArray(raw)) throw new Error(`event handler ${name} subscriptions is not a list`);
  return raw.map((entry: unknown, index) => {
    if (!isJsonObject(entry))
      throw new Error(`The subscription at index ${index} for event handler ${name} is not a map`);
    const { type, ...options } = entry;
    if (typeof type !== 'string' || type === '')
      throw new Error(`The subscription at index ${index} for event handler ${name} has no type`);
    return { type, options };
  });
}

function handlerOf(name: string, raw: unknown): EventHandlerSetting {
  if (raw === undefined) throw new Error(`no event handler defined for ${name}`);
  if (!isJsonObject(raw)) throw new Error(`event configuration for ${name} is not a map`);
  if (raw.type === undefined) throw new Error(`no handler type for ${name} provided`);
  const bufferSize = optionalInteger(raw.bufferSize, 'bufferSize', 1);
  const type = typeof raw.type === 'string' ? raw.type : JSON.stringify(raw.type);
  if (type !== 'file' && type !== 'stdout' && type !== 'amqp')
    throw new Error(`invalid handler type ${type} for handler ${name} provided`);
  if (raw.format === undefined) throw new Error("'format' must be specified for event handler");
  if (typeof raw.format !== 'string' || raw.format.toLowerCase() !== 'json')
    throw new Error(`invalid 'format' for event log output file: ${JSON.stringify(raw.format)}`);
  if (type === 'stdout') return { type, bufferSize };
  if (type === 'file') {
    if (raw.path === undefined) throw new Error("missing required 'path' config for events FileLogger handler");
    if (typeof raw.path !== 'string' || raw.path === '') throw new Error("invalid event FileLogger 'path' value");
    return {
      type,
      path: raw.path,
      maxSizeMb: optionalInteger(raw.maxsizemb, 'maxsizemb', 1) ?? 10,
      maxBackups: optionalInteger(raw.maxbackups, 'maxbackups', 0) ?? 0,
      bufferSize,
    };
  }
  if (typeof raw.url !== 'string' || raw.url === '') throw new Error('unable to parse amqp config: missing amqp url');
  if (typeof raw.queue !== 'string' || raw.queue === '')
    throw new Error('unable to parse amqp config: missing amqp queue name');
  return {
    type,
    url: raw.url,
    queue: raw.queue,
    durable: raw.durable !== false,
    autoDelete: raw.autoDelete === true,
    exclusive: raw.exclusive === true,
    bufferSize,
  };
}

function optionalInteger(raw: unknown, key: string, min: number): number | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'number' || !Number.isSafeInteger(raw) || raw < min)
    throw new Error(`${key} must be a whole number of at least ${min}`);
  return raw;
}

export const eventsSettingSpecs: readonly SettingSpec<EventsSettings>[] = [
  { key: 'eventLoggers', yamlPath: 'events', parse: eventLoggers, default: [] },
  {
    key: 'entityChangeRetentionMs',
    yamlPath: 'entityChanges.retention',
    env: 'ZITI_ENTITY_CHANGE_RETENTION',
    parse: duration(60_000, 10 * 365 * 24 * 3_600_000),
    default: 7 * 24 * 3_600_000,
  },
];
