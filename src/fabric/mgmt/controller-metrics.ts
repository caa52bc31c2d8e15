// The `metrics` inspection (upstream Network.Inspect: any name starting with "metrics"): the controller's registry
// polled into a metrics_pb.MetricsMessage and written as Go's json.Marshal writes that struct (its json tags:
// camelCase, omitempty; the timestamp a protobuf Timestamp's seconds and nanos). Ours is a Prometheus registry, so
// its metrics are put where upstream's registry puts the same kinds: counters and integer gauges in intValues (as
// upstream's AddCounter and addIntGauge), other gauges in floatValues, histograms in histograms with their count
// and mean. Prometheus keeps a histogram's buckets, not its min, max or percentiles, so those are left out (Go leaves
// zero values out the same way) rather than made up. A labelled series is named `<metric>.<label values>`.
import { randomUUID } from 'node:crypto';
import type { MetricSnapshot } from '../ctrl/fabric-metrics.js';
import { goJsonText } from '../../events/go-json.js';

interface MetricsMessage {
  eventId: string;
  sourceId?: string;
  timestamp: { seconds?: number; nanos?: number };
  intValues?: Record<string, number>;
  floatValues?: Record<string, number>;
  histograms?: Record<string, { count?: number; mean?: number }>;
}

/** Upstream's registry with nothing in it polls to nil, which json.Marshal writes as `null`. */
export function metricsMessageJson(snapshot: readonly MetricSnapshot[], sourceId: string, now: Date): string {
  const ints: [string, number][] = [];
  const floats: [string, number][] = [];
  const histograms: [string, { count?: number; mean?: number }][] = [];
  for (const metric of snapshot) {
    if (metric.type === 'histogram' || metric.type === 'summary') {
      const series = new Map<string, { count: number; sum: number }>();
      for (const value of metric.values) {
        const { le: _le, quantile: _quantile, ...labels } = value.labels;
        const name = seriesName(metric.name, labels);
        const entry = series.get(name) ?? { count: 0, sum: 0 };
        if (value.metricName === `${metric.name}_count`) entry.count = value.value;
        else if (value.metricName === `${metric.name}_sum`) entry.sum = value.value;
        series.set(name, entry);
      }
      for (const [name, { count, sum }] of series)
        histograms.push([name, omitZero({ count, mean: count === 0 ? 0 : sum / count })]);
      continue;
    }
    for (const value of metric.values) {
      const name = seriesName(metric.name, value.labels);
      if (Number.isInteger(value.value)) ints.push([name, value.value]);
      else if (Number.isFinite(value.value)) floats.push([name, value.value]);
    }
  }
  if (ints.length + floats.length + histograms.length === 0) return 'null';
  const milliseconds = now.getTime();
  const message: MetricsMessage = {
    eventId: randomUUID(),
    ...(sourceId ? { sourceId } : {}),
    timestamp: omitZero({ seconds: Math.floor(milliseconds / 1000), nanos: (milliseconds % 1000) * 1_000_000 }),
    ...(ints.length ? { intValues: sortedMap(ints) } : {}),
    ...(floats.length ? { floatValues: sortedMap(floats) } : {}),
    ...(histograms.length ? { histograms: sortedMap(histograms) } : {}),
  };
  return goJsonText(message);
}

function seriesName(name: string, labels: Partial<Record<string, string | number>>): string {
  const values = Object.values(labels).filter((value) => value !== undefined && value !== '');
  return values.length === 0 ? name : `${name}.${values.join('.')}`;
}

/** Go writes a map's keys sorted. */
function sortedMap<T>(entries: [string, T][]): Record<string, T> {
  return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** omitempty: a zero number is left out. */
function omitZero<K extends string>(values: Record<K, number>): Partial<Record<K, number>> {
  const kept: Partial<Record<K, number>> = {};
  for (const key of Object.keys(values) as K[]) if (values[key] !== 0) kept[key] = values[key];
  return kept;
}
