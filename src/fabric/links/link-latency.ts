// Link latencies from a router's Metrics (1007, openziti/metrics v1.2.56 metrics_pb.MetricsMessage): upstream's
// Network.AcceptMetricsMsg takes, per link of the router, the mean of histogram `link.<id>.latency` plus the mean of
// `link.<id>.queue_time` (ns). Only field 8 (histograms: map<string, Histogram>, Histogram.mean = 3) is read; the
// rest of the message is skipped as protobuf allows.
import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';

const HISTOGRAMS = 8;
const MEAN = 3;

function histogramMean(bytes: Uint8Array): number | undefined {
  const reader = new BinaryReader(bytes);
  let mean: number | undefined;
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (field === MEAN && wireType === WireType.Bit64) mean = reader.double();
    else reader.skip(wireType);
  }
  return mean;
}

function histograms(body: Uint8Array): Map<string, number> {
  const means = new Map<string, number>();
  const reader = new BinaryReader(body);
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (field !== HISTOGRAMS || wireType !== WireType.LengthDelimited) {
      reader.skip(wireType);
      continue;
    }
    const entry = new BinaryReader(reader.bytes());
    let name: string | undefined;
    let mean: number | undefined;
    while (entry.pos < entry.len) {
      const [key, type] = entry.tag();
      if (key === 1 && type === WireType.LengthDelimited) name = entry.string();
      else if (key === 2 && type === WireType.LengthDelimited) mean = histogramMean(entry.bytes());
      else entry.skip(type);
    }
    if (name !== undefined && mean !== undefined && name.startsWith('link.')) means.set(name, mean);
  }
  return means;
}

/** Latency (ns) per link id the metrics measure; throws on a malformed message. */
export function linkLatencies(body: Uint8Array): Map<string, number> {
  const means = histograms(body);
  const latencies = new Map<string, number>();
  for (const [name, mean] of means) {
    if (!name.endsWith('.latency')) continue;
    const linkId = name.slice('link.'.length, -'.latency'.length);
    latencies.set(linkId, mean + (means.get(`link.${linkId}.queue_time`) ?? 0));
  }
  return latencies;
}
