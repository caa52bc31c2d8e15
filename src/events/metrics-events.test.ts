import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { create } from '@bufbuild/protobuf';
import { timestampFromMs } from '@bufbuild/protobuf/wkt';
import { Registry } from 'prom-client';
import {
  MetricsMessageSchema,
  MetricsMessage_HistogramSchema,
  MetricsMessage_IntervalBucketSchema,
  MetricsMessage_IntervalCounterSchema,
  MetricsMessage_MeterSchema,
  MetricsMessage_UsageBucketSchema,
  MetricsMessage_UsageCounterSchema,
} from '../fabric/messages/gen/metrics_pb.js';
import { EventDispatcher } from './dispatcher.js';
import type { ZitiEvent } from './event-types.js';
import { metricsEvents, usageEventsV2, usageEventsV3 } from './metrics-events.js';
import { prometheusName, RouterMetrics } from './router-metrics.js';

const message = create(MetricsMessageSchema, {
  sourceId: 'router-1',
  timestamp: timestampFromMs(Date.UTC(2026, 10, 29, 10, 0, 0, 250)),
  tags: { hostname: 'h' },
  intValues: { 'xgress.blocked_by_local_window_rate': 3n },
  meters: { 'xgress.tx.bytesrate': create(MetricsMessage_MeterSchema, { count: 10n, m1Rate: 1.5 }) },
  histograms: {
    'link.L1.latency': create(MetricsMessage_HistogramSchema, { count: 4n, mean: 2_000_000, p50: 1_000_000 }),
  },
  intervalCounters: {
    'fabric.usage.egress.tx': create(MetricsMessage_IntervalCounterSchema, {
      intervalLength: 60n,
      buckets: [create(MetricsMessage_IntervalBucketSchema, { intervalStartUTC: 1_800_000_000n, values: { c1: 42n } })],
    }),
  },
  usageCounters: [
    create(MetricsMessage_UsageCounterSchema, {
      intervalStartUTC: 1_800_000_000n,
      intervalLength: 60n,
      buckets: {
        c2: create(MetricsMessage_UsageBucketSchema, {
          values: { 'ingress.rx': 7n, 'ingress.tx': 8n },
          tags: { serviceId: 's' },
        }),
      },
    }),
  ],
});

const linkEnds = (id: string) => (id === 'L1' ? { srcRouterId: 'router-1', dstRouterId: 'router-2' } : undefined);

describe('a router’s Metrics message as upstream v1.1.8’s events', () => {
  it('one metrics event per metric, link metrics named for the link with its routers as tags', () => {
    const events = metricsEvents(message, {}, 'event-1', linkEnds);
    const byMetric = new Map(events.map((event) => [event.metric, event]));
    assert.deepEqual(byMetric.get('xgress.blocked_by_local_window_rate'), {
      metric_type: 'intValue',
      namespace: 'metrics',
      source_id: 'router-1',
      version: 3,
      timestamp: '2026-11-29T10:00:00.25Z',
      metric: 'xgress.blocked_by_local_window_rate',
      metrics: { value: 3 },
      tags: { hostname: 'h' },
      source_event_id: 'event-1',
    });
    const latency = byMetric.get('link.latency');
    assert.equal(latency?.source_entity_id, 'L1');
    assert.deepEqual(latency?.tags, { hostname: 'h', sourceRouterId: 'router-1', targetRouterId: 'router-2' });
    assert.deepEqual(Object.keys(latency?.metrics ?? {}), [
      'count',
      'max',
      'mean',
      'min',
      'p50',
      'p75',
      'p95',
      'p99',
      'p999',
      'p9999',
      'std_dev',
      'variance',
    ]);
    assert.deepEqual(byMetric.get('xgress.tx.bytesrate')?.metrics, {
      count: 10,
      m15_rate: 0,
      m1_rate: 1.5,
      m5_rate: 0,
      mean_rate: 0,
    });
  });

  it('filters by source and by `<metric>.<key>` as upstream’s sourceFilter and metricFilter', () => {
    assert.deepEqual(metricsEvents(message, { sourceFilter: /^other/ }, 'e', linkEnds), []);
    const rates = metricsEvents(message, { metricFilter: /\.m1_rate$/ }, 'e', linkEnds);
    assert.deepEqual(
      rates.map((event) => [event.metric, event.metrics]),
      [['xgress.tx.bytesrate', { m1_rate: 1.5 }]],
    );
    assert.deepEqual(metricsEvents({ ...message, doNotPropagate: true }, {}, 'e', linkEnds), []);
  });

  it('usage as version 2 (one event per value) and version 3 (one per circuit)', () => {
    assert.deepEqual(
      usageEventsV2(message).map((event) => [event.event_type, event.circuit_id, event.usage, event.tags]),
      [
        ['fabric.usage.egress.tx', 'c1', 42, null],
        ['usage.ingress.rx', 'c2', 7, { serviceId: 's' }],
        ['usage.ingress.tx', 'c2', 8, { serviceId: 's' }],
      ],
    );
    assert.deepEqual(
      usageEventsV3(message).map((event) => [event.circuit_id, event.usage, event.interval_start_utc]),
      [
        ['c1', { 'fabric.usage.egress.tx': 42 }, 1_800_000_000],
        ['c2', { 'ingress.rx': 7, 'ingress.tx': 8 }, 1_800_000_000],
      ],
    );
  });

  it('the dispatcher trusts the channel’s router over the message’s sourceId', () => {
    const d = new EventDispatcher({ entityTypes: [], warn: () => undefined, linkEnds });
    const got: ZitiEvent[] = [];
    d.subscribe([{ type: 'metrics', options: { metricFilter: 'blocked' } }, { type: 'fabric.usage' }], {
      accept: (event) => got.push(event),
    });
    d.routerMetrics('router-9', message);
    assert.deepEqual(
      got.map((event) => [event.namespace, 'source_id' in event ? event.source_id : '']),
      [
        ['metrics', 'router-9'],
        ['fabric.usage', 'router-9'],
        ['fabric.usage', 'router-9'],
        ['fabric.usage', 'router-9'],
      ],
    );
  });

  it('on the Prometheus listener under upstream’s names, each router’s last report', async () => {
    assert.equal(prometheusName('link.latency'), 'ziti_link_latency');
    assert.equal(prometheusName('xgress.dropped_payloads_count'), 'ziti_xgress_dropped_payloads_c');
    const registry = new Registry();
    const routers = new RouterMetrics(registry, linkEnds);
    routers.accept('router-1', message);
    const text = await registry.metrics();
    assert.match(text, /^ziti_xgress_tx_bytesrate\{hostname="h",source_id="router-1"\} 1\.5$/m);
    assert.match(
      text,
      /^ziti_link_latency_bucket\{hostname="h",sourceRouterId="router-1",targetRouterId="router-2",source_id="router-1",source_entity_id="L1",le="0\.50"\} 1000000$/m,
    );
    routers.forget('router-1');
    assert.doesNotMatch(await registry.metrics(), /source_id="router-1"/);
  });
});
