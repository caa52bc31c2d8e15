// Link latencies from a router's Metrics (1007, openziti/metrics metrics_pb.MetricsMessage): upstream's
// Network.AcceptMetricsMsg takes, per link of the router, the mean of histogram `link.<id>.latency` plus the mean of
// `link.<id>.queue_time` (ns). Read from the message the Metrics line decodes once for the links and the events.
import type { MetricsMessage } from '../messages/gen/metrics_pb.js';

/** Latency (ns) per link id the metrics measure. */
export function linkLatencies(metrics: Pick<MetricsMessage, 'histograms'>): Map<string, number> {
  const latencies = new Map<string, number>();
  for (const [name, histogram] of Object.entries(metrics.histograms)) {
    if (!name.startsWith('link.') || !name.endsWith('.latency')) continue;
    const linkId = name.slice('link.'.length, -'.latency'.length);
    latencies.set(linkId, histogram.mean + (metrics.histograms[`link.${linkId}.queue_time`]?.mean ?? 0));
  }
  return latencies;
}
