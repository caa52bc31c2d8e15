// The routers' and links' metrics beside the controller's own on the Prometheus listener (issue 31): the last
// Metrics message (1007) of each router this process holds, under upstream's names and labels (events/formatter.go
// PrometheusMetricsEvent: `ziti_` + the metric with `.`, `-`, `=`, `/` and spaces as `_`, a `_count` suffix as `_c`;
// the event's tags and `source_id`). Values are gauges: a meter's m1_rate; a histogram's or timer's `_count`, and its
// percentiles as `_bucket{le="0.50"…}` as upstream writes them. A link's metrics also carry `source_entity_id` (the
// link), so that two links between the same routers stay apart.
import type { Metric, Registry } from 'prom-client';
import type { MetricsMessage } from '../fabric/messages/gen/metrics_pb.js';
import type { MetricsEvent } from './event-types.js';
import { metricsEvents, type LinkEnds } from './metrics-events.js';

const PERCENTILES: readonly [string, string][] = [
  ['p50', '0.50'],
  ['p75', '0.75'],
  ['p95', '0.95'],
  ['p99', '0.99'],
  ['p999', '0.999'],
  ['p9999', '0.9999'],
];

interface Sample {
  labels: Record<string, string>;
  value: number;
}

/** upstream getMetricName. */
export function prometheusName(metric: string): string {
  let key = metric.replace(/[ .\-=/]/g, '_').replace(/:/g, '');
  if (key.endsWith('_count')) key = `${key.slice(0, -'_count'.length)}_c`;
  return `ziti_${key}`;
}

/** Prometheus label names are [a-zA-Z_][a-zA-Z0-9_]*: a tag named otherwise is written with `_`. */
const labelName = (name: string) => name.replace(/[^a-zA-Z0-9_]/g, '_').replace(/^(\d)/, '_$1');

function labelsOf(event: MetricsEvent): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const [name, value] of Object.entries(event.tags ?? {})) labels[labelName(name)] = value;
  labels.source_id = event.source_id;
  if (event.source_entity_id && event.metric.startsWith('link.')) labels.source_entity_id = event.source_entity_id;
  return labels;
}

/** One event's samples by family name. */
function samplesOf(event: MetricsEvent): [string, Sample][] {
  const name = prometheusName(event.metric);
  const labels = labelsOf(event);
  switch (event.metric_type) {
    case 'intValue':
    case 'floatValue':
      return event.metrics.value === undefined ? [] : [[name, { labels, value: event.metrics.value }]];
    case 'meter':
      return event.metrics.m1_rate === undefined ? [] : [[name, { labels, value: event.metrics.m1_rate }]];
    case 'histogram':
    case 'timer':
      return [
        [`${name}_count`, { labels, value: event.metrics.count ?? 0 }],
        ...PERCENTILES.map(([key, le]): [string, Sample] => [
          `${name}_bucket`,
          { labels: { ...labels, le }, value: event.metrics[key] ?? 0 },
        ]),
      ];
  }
}

export class RouterMetrics {
  /** router → family → samples, from its last message. */
  readonly #latest = new Map<string, Map<string, Sample[]>>();
  readonly #registered = new Set<string>();

  constructor(
    private readonly registry: Registry,
    private readonly linkEnds: LinkEnds,
  ) {}

  /** Keeps the router's last message (it replaces the one before: routers report their current figures). */
  accept(routerId: string, message: MetricsMessage): void {
    const families = new Map<string, Sample[]>();
    const events = metricsEvents({ ...message, sourceId: routerId, doNotPropagate: false }, {}, '', this.linkEnds);
    for (const event of events)
      for (const [family, sample] of samplesOf(event)) {
        let samples = families.get(family);
        if (!samples) families.set(family, (samples = []));
        samples.push(sample);
        this.#register(family);
      }
    this.#latest.set(routerId, families);
  }

  /** The router left this process: its figures go (another process, or none, reports it now). */
  forget(routerId: string): void {
    this.#latest.delete(routerId);
  }

  #register(family: string): void {
    if (this.#registered.has(family) || this.registry.getSingleMetric(family)) return;
    this.#registered.add(family);
    const help = family;
    const get = () => ({
      name: family,
      help,
      type: 'gauge',
      aggregator: 'sum',
      values: [...this.#latest.values()].flatMap((families) => families.get(family) ?? []),
    });
    // prom-client's Metric is a class with private members; the registry reads only these (name, help, type, get).
    this.registry.registerMetric({
      name: family,
      help,
      type: 'gauge',
      aggregator: 'sum',
      get,
      reset: () => undefined,
    } as unknown as Metric);
  }
}
