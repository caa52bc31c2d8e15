import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { Metrics } from '../../system/metrics.js';
import { metricsMessageJson } from './controller-metrics.js';

describe('the metrics inspection', () => {
  it("is upstream's MetricsMessage as Go writes it: sorted maps, zero values left out, histograms' count and mean", async () => {
    const registry = new Registry();
    new Counter({ name: 'logins', help: 'h', labelNames: ['method'], registers: [registry] }).labels('cert').inc(3);
    new Gauge({ name: 'load', help: 'h', registers: [registry] }).set(0.5);
    new Gauge({ name: 'open', help: 'h', registers: [registry] }).set(7);
    const histogram = new Histogram({ name: 'setup', help: 'h', buckets: [1, 2], registers: [registry] });
    histogram.observe(1);
    histogram.observe(2);
    const snapshot = (await registry.getMetricsAsJSON()).map((metric) => ({ ...metric, type: String(metric.type) }));
    const text = metricsMessageJson(snapshot, 'ctrl-1', new Date('2026-11-29T10:00:01.500Z'));
    const parsed = JSON.parse(text) as Record<string, unknown>;
    assert.match(String(parsed.eventId), /^[0-9a-f-]{36}$/);
    assert.equal(
      text.replace(/"eventId":"[^"]+"/, '"eventId":"<id>"'),
      '{"eventId":"<id>","sourceId":"ctrl-1","timestamp":{"seconds":1795946401,"nanos":500000000},' +
        '"intValues":{"logins.cert":3,"open":7},"floatValues":{"load":0.5},"histograms":{"setup":{"count":2,"mean":1.5}}}',
    );
  });

  it('an empty registry is `null`, as upstream polls an empty one to nil', () => {
    assert.equal(metricsMessageJson([], 'ctrl-1', new Date(0)), 'null');
  });

  it("reads the controller's own registry (system/metrics.ts)", async () => {
    const metrics = new Metrics({ openConnections: () => Promise.resolve(2), apiSessions: () => Promise.resolve(1) });
    metrics.circuitCreated(0.25);
    const message = JSON.parse(metricsMessageJson(await metrics.snapshot(), 'c', new Date())) as {
      intValues: Record<string, number>;
      histograms: Record<string, { count: number }>;
    };
    assert.ok(Object.keys(message.intValues).length > 0);
    assert.equal(
      Object.values(message.histograms).some((entry) => entry.count === 1),
      true,
    );
  });
});
