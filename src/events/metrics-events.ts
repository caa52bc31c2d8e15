// A router's Metrics message (1007) as upstream v1.1.8 turns it into events (ziti controller/events
// dispatcher_metrics.go convertMetricsMsgToEvents, metrics_mappers.go, dispatcher_usage.go usageEventAdapter): one
// `metrics` event per metric, filtered per subscription, and `fabric.usage` events in version 2 or 3 from the
// interval and usage counters.
import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { MetricsMessage } from '../fabric/messages/gen/metrics_pb.js';
import { goJsonTime, type MetricsEvent, type UsageEventV2, type UsageEventV3 } from './event-types.js';

/** What the link mapper needs: a link's two routers, when the link is known. */
export type LinkEnds = (linkId: string) => { srcRouterId: string; dstRouterId: string } | undefined;

type Values = [string, number | bigint][];

const meterValues = (m: MetricsMessage_Meter): Values => [
  ['count', m.count],
  ['mean_rate', m.meanRate],
  ['m1_rate', m.m1Rate],
  ['m5_rate', m.m5Rate],
  ['m15_rate', m.m15Rate],
];

const histogramValues = (h: MetricsMessage_Histogram): Values => [
  ['count', h.count],
  ['min', h.min],
  ['max', h.max],
  ['mean', h.mean],
  ['std_dev', h.stdDev],
  ['variance', h.variance],
  ['p50', h.p50],
  ['p75', h.p75],
  ['p95', h.p95],
  ['p99', h.p99],
  ['p999', h.p999],
  ['p9999', h.p9999],
];

type MetricsMessage_Meter = MetricsMessage['meters'][string];
type MetricsMessage_Histogram = MetricsMessage['histograms'][string];
type MetricsMessage_Timer = MetricsMessage['timers'][string];

const timerValues = (t: MetricsMessage_Timer): Values => [
  ['count', t.count],
  ['mean_rate', t.meanRate],
  ['m1_rate', t.m1Rate],
  ['m5_rate', t.m5Rate],
  ['m15_rate', t.m15Rate],
  ['min', t.min],
  ['max', t.max],
  ['mean', t.mean],
  ['std_dev', t.stdDev],
  ['variance', t.variance],
  ['p50', t.p50],
  ['p75', t.p75],
  ['p95', t.p95],
  ['p99', t.p99],
  ['p999', t.p999],
  ['p9999', t.p9999],
];

export interface MetricsFilters {
  sourceFilter?: RegExp | undefined;
  metricFilter?: RegExp | undefined;
}

/**
 * The `metrics` events of one message for one subscription's filters (convertMetricsMsgToEvents): the source filter
 * drops the whole message, the metric filter each value (`<metric>.<key>`, or `<metric>.` for a plain value); an
 * event left with no value is not sent. `sourceEventId` is shared by the message's events.
 */
export function metricsEvents(
  message: MetricsMessage,
  filters: MetricsFilters,
  sourceEventId: string,
  linkEnds: LinkEnds,
): MetricsEvent[] {
  if (message.doNotPropagate) return [];
  if (filters.sourceFilter && !filters.sourceFilter.test(message.sourceId)) return [];
  // The router's own time, to the nanosecond as upstream writes it.
  const timestamp = message.timestamp
    ? goJsonTime(timestampDate(message.timestamp), message.timestamp.nanos)
    : goJsonTime(new Date(0));
  const events: MetricsEvent[] = [];
  const add = (type: MetricsEvent['metric_type'], name: string, values: Values, plain: boolean) => {
    const metrics: Record<string, number> = {};
    for (const [key, value] of values) {
      if (filters.metricFilter && !filters.metricFilter.test(`${name}.${plain ? '' : key}`)) continue;
      metrics[plain ? 'value' : key] = Number(value);
    }
    if (Object.keys(metrics).length === 0) return;
    events.push(mapped(message, { type, name, metrics, timestamp, sourceEventId }, linkEnds));
  };
  for (const [name, value] of Object.entries(message.intValues)) add('intValue', name, [['', value]], true);
  for (const [name, value] of Object.entries(message.floatValues)) add('floatValue', name, [['', value]], true);
  for (const [name, value] of Object.entries(message.meters)) add('meter', name, meterValues(value), false);
  for (const [name, value] of Object.entries(message.histograms)) add('histogram', name, histogramValues(value), false);
  for (const [name, value] of Object.entries(message.timers)) add('timer', name, timerValues(value), false);
  return events;
}

interface Built {
  type: MetricsEvent['metric_type'];
  name: string;
  metrics: Record<string, number>;
  timestamp: string;
  sourceEventId: string;
}

/** newMetricEvent with upstream's two mappers: `ctrl.<name>:<id>` and `link.<id>.<name>` name an entity. */
function mapped(message: MetricsMessage, built: Built, linkEnds: LinkEnds): MetricsEvent {
  let metric = built.name;
  let sourceEntityId: string | undefined;
  let tags: Record<string, string> | undefined = Object.keys(message.tags).length > 0 ? message.tags : undefined;
  if (metric.startsWith('ctrl.')) {
    const parts = metric.split(':');
    if (parts.length > 1) [metric, sourceEntityId] = [parts[0]!, parts[1]!];
  } else if (metric.startsWith('link.')) {
    const parts = metric.split(':');
    const [name, linkId] =
      parts.length === 2
        ? [parts[0]!, parts[1]!]
        : extractId(metric, 'link.', metric.endsWith('latency') || metric.endsWith('queue_time') ? 1 : 2);
    metric = name;
    sourceEntityId = linkId;
    const ends = linkEnds(linkId);
    if (ends) tags = { ...tags, sourceRouterId: ends.srcRouterId, targetRouterId: ends.dstRouterId };
  }
  return {
    metric_type: built.type,
    namespace: 'metrics',
    source_id: message.sourceId,
    ...(sourceEntityId ? { source_entity_id: sourceEntityId } : {}),
    version: 3,
    timestamp: built.timestamp,
    metric,
    metrics: sortedKeys(built.metrics),
    ...(tags ? { tags: sortedKeys(tags) } : {}),
    source_event_id: built.sourceEventId,
  };
}

/** upstream ExtractId: `link.<id with dots>.<suffix of suffixLen parts>` → [`link.<suffix>`, id]. */
function extractId(name: string, prefix: string, suffixLength: number): [string, string] {
  const rest = name.slice(prefix.length);
  const parts = rest.split('.');
  const entityId = parts.slice(0, Math.max(0, parts.length - suffixLength)).join('.');
  return [prefix + rest.slice(entityId.length + 1), entityId];
}

/** Go writes a map's keys sorted. */
function sortedKeys<T>(map: Readonly<Record<string, T>>): Record<string, T> {
  return Object.fromEntries(Object.entries(map).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

const tagsOrNull = (tags: Readonly<Record<string, string>> | undefined) =>
  tags && Object.keys(tags).length > 0 ? sortedKeys(tags) : null;

/** `fabric.usage` version 2: one event per counter value (usageEventAdapter). */
export function usageEventsV2(message: MetricsMessage): UsageEventV2[] {
  if (message.doNotPropagate) return [];
  const events: UsageEventV2[] = [];
  for (const [name, interval] of Object.entries(message.intervalCounters))
    for (const bucket of interval.buckets)
      for (const [circuitId, usage] of Object.entries(bucket.values))
        events.push({
          namespace: 'fabric.usage',
          version: 2,
          event_type: name,
          source_id: message.sourceId,
          circuit_id: circuitId,
          usage: Number(usage),
          interval_start_utc: Number(bucket.intervalStartUTC),
          interval_length: Number(interval.intervalLength),
          tags: null,
        });
  for (const counter of message.usageCounters)
    for (const [circuitId, bucket] of Object.entries(counter.buckets))
      for (const [usageType, usage] of Object.entries(bucket.values))
        events.push({
          namespace: 'fabric.usage',
          version: 2,
          event_type: `usage.${usageType}`,
          source_id: message.sourceId,
          circuit_id: circuitId,
          usage: Number(usage),
          interval_start_utc: Number(counter.intervalStartUTC),
          interval_length: Number(counter.intervalLength),
          tags: tagsOrNull(bucket.tags),
        });
  return events;
}

/** `fabric.usage` version 3: one event per circuit and interval, its usage types together. */
export function usageEventsV3(message: MetricsMessage): UsageEventV3[] {
  if (message.doNotPropagate) return [];
  const events: UsageEventV3[] = [];
  for (const [name, interval] of Object.entries(message.intervalCounters))
    for (const bucket of interval.buckets)
      for (const [circuitId, usage] of Object.entries(bucket.values))
        events.push({
          namespace: 'fabric.usage',
          version: 3,
          source_id: message.sourceId,
          circuit_id: circuitId,
          usage: { [name]: Number(usage) },
          interval_start_utc: Number(bucket.intervalStartUTC),
          interval_length: Number(interval.intervalLength),
          tags: null,
        });
  for (const counter of message.usageCounters)
    for (const [circuitId, bucket] of Object.entries(counter.buckets))
      events.push({
        namespace: 'fabric.usage',
        version: 3,
        source_id: message.sourceId,
        circuit_id: circuitId,
        usage: sortedKeys(Object.fromEntries(Object.entries(bucket.values).map(([k, v]) => [k, Number(v)]))),
        interval_start_utc: Number(counter.intervalStartUTC),
        interval_length: Number(counter.intervalLength),
        tags: tagsOrNull(bucket.tags),
      });
  return events;
}
