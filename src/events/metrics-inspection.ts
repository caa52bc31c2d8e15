// A `metrics…` inspection value over REST (upstream api_impl/inspections_api_model.go and metrics_api_model.go): the
// controller and each router answer their registry as a MetricsMessage written by Go's json.Marshal, and the REST
// answer turns it into the `metrics` events a subscription without filters would get (`metrics` or `metrics:json`).
// Text that is no such message, or another format (upstream's `metrics:prometheus`, which ours does not write), is
// given as the text it is, as upstream does when it cannot map it.
import { randomUUID } from 'node:crypto';
import { create, fromJson, type JsonObject } from '@bufbuild/protobuf';
import { TimestampSchema } from '@bufbuild/protobuf/wkt';
import { MetricsMessageSchema, type MetricsMessage } from '../fabric/messages/gen/metrics_pb.js';
import { metricsEvents, type LinkEnds } from './metrics-events.js';
import type { MetricsEvent } from './event-types.js';

/** The events for a `metrics…` value, or undefined when upstream would give the text as it is. */
export function metricsInspectionEvents(name: string, text: string, linkEnds: LinkEnds): MetricsEvent[] | undefined {
  const format = name.split(':')[1] ?? 'json';
  if (format !== 'json') return undefined;
  const message = readGoMetricsMessage(text);
  return message && metricsEvents(message, {}, randomUUID(), linkEnds);
}

/**
 * Go's json.Marshal of metrics_pb.MetricsMessage: the proto's own field names, but the timestamp as the Timestamp
 * struct's `{seconds, nanos}` where protobuf's JSON would have an RFC 3339 text; other fields Go would not know are
 * ignored, as json.Unmarshal ignores them.
 */
function readGoMetricsMessage(text: string): MetricsMessage | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  // Checked just above: a JSON object (what JSON.parse types as unknown).
  const { timestamp, ...rest } = parsed as JsonObject;
  try {
    const message = fromJson(MetricsMessageSchema, rest, { ignoreUnknownFields: true });
    if (typeof timestamp === 'object' && timestamp !== null && !Array.isArray(timestamp)) {
      const { seconds, nanos } = timestamp;
      message.timestamp = create(TimestampSchema, {
        seconds: BigInt(typeof seconds === 'number' ? Math.trunc(seconds) : 0),
        nanos: typeof nanos === 'number' ? Math.trunc(nanos) : 0,
      });
    }
    return message;
  } catch {
    return undefined;
  }
}
