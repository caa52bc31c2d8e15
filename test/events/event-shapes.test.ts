// Our events against upstream v1.1.8's, recorded from a real upstream controller for the same actions
// (test/fixtures/events/upstream-v1.1.8.jsonl, written by `npm run test:interop:events`): every kind upstream wrote
// is made here by the code that makes it in production, and must have upstream's fields with values of the same
// JSON types.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { create } from '@bufbuild/protobuf';
import { timestampFromMs } from '@bufbuild/protobuf/wkt';
import type { Circuit } from '../../src/fabric/circuits/circuit-registry.js';
import {
  MetricsMessageSchema,
  MetricsMessage_HistogramSchema,
  MetricsMessage_MeterSchema,
  MetricsMessage_TimerSchema,
} from '../../src/fabric/messages/gen/metrics_pb.js';
import type { ZitiEvent } from '../../src/events/event-types.js';
import { fabricEvents } from '../../src/events/fabric-events.js';
import { ServiceCounters } from '../../src/events/service-counters.js';
import { TerminatorEvents } from '../../src/events/terminator-events.js';
import { edgeSessionEvent } from '../../src/events/edge-session-events.js';
import { buildTestApp, type TestApp } from '../support/test-app.js';
import { eventKind, shapeOf } from './event-shape.js';

const fixtures = readFileSync(new URL('../fixtures/events/upstream-v1.1.8.jsonl', import.meta.url), 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line) as Record<string, unknown>);

const circuit: Circuit = {
  id: 'c1',
  serviceId: 's1',
  serviceName: 'echo',
  clientId: 'session-1',
  hostId: 'host-1',
  sessionId: 'session-1',
  terminatorId: 't1',
  strategy: 'smartrouting',
  routerId: 'r1',
  path: { routerIds: ['r1'], linkIds: [] },
  terminator: { binding: 'edge', address: 'hosted:t1' },
  ingressId: 'in',
  egressId: 'out',
  tags: { serviceId: 's1', clientId: 'identity-1', hostId: 'host-1' },
  createdAt: Date.UTC(2026, 10, 29, 10),
  updatedAt: Date.UTC(2026, 10, 29, 10),
};

describe('event shapes against upstream v1.1.8 fixtures', () => {
  let t: TestApp;
  const ours: ZitiEvent[] = [];
  before(async () => {
    t = await buildTestApp();
    const { dispatcher } = t.events;
    const all = [
      'fabric.circuits',
      'fabric.routers',
      'fabric.terminators',
      'metrics',
      'entityChange',
      'edge.apiSessions',
      'edge.sessions',
      'edge.entityCounts',
    ].map((type) => ({ type, ...(type === 'edge.entityCounts' ? { options: { interval: '1s' } } : {}) }));
    dispatcher.subscribe(all, { accept: (event) => ours.push(event) });
    // Entity changes and a login, through the API as in production.
    const token = await t.loginAsAdmin();
    const made = await t.call({
      method: 'POST',
      url: '/edge/management/v1/config-types',
      token,
      payload: { name: 'shape', schema: {} },
    });
    const id = (made.body as { data: { id: string } }).data.id;
    await t.call({
      method: 'PATCH',
      url: `/edge/management/v1/config-types/${id}`,
      token,
      payload: { tags: { a: 'b' } },
    });
    await t.call({ method: 'DELETE', url: `/edge/management/v1/config-types/${id}`, token });
    // The control plane's facts, through the code the fabric calls.
    const fabric = fabricEvents({ dispatcher, clock: t.clock, services: new ServiceCounters(dispatcher, t.clock) });
    fabric.circuitCreated(circuit, circuit.createdAt - 5, 3);
    fabric.circuitDeleted(circuit);
    fabric.circuitFailed({
      circuitId: 'c2',
      clientId: 'session-1',
      serviceId: 's1',
      instanceId: '',
      terminatorId: '',
      path: undefined,
      cost: undefined,
      cause: 'NO_TERMINATORS',
      startedAt: circuit.createdAt,
      tags: { serviceId: 's1', clientId: 'identity-1' },
    });
    fabric.routerMetrics(
      'r1',
      create(MetricsMessageSchema, {
        sourceId: 'r1',
        timestamp: timestampFromMs(circuit.createdAt),
        intValues: { 'pool.route.handler.queue_size': 0n },
        meters: { 'xgress.ack_duplicates': create(MetricsMessage_MeterSchema, {}) },
        histograms: { 'egress.rx.msgsize': create(MetricsMessage_HistogramSchema, { count: 6n }) },
        timers: { 'pool.terminator_validation.work_timer': create(MetricsMessage_TimerSchema, {}) },
      }),
    );
    const terminators = new TerminatorEvents({
      dispatcher,
      store: t.deps.store,
      clock: t.clock,
      isOnline: () => true,
      warn: () => undefined,
    });
    terminators.routerPresence('r1', true);
    terminators.changed('created', {
      id: 't1',
      service: 's1',
      router: 'r1',
      hostId: 'h',
      cost: 0,
      precedence: 'default',
    });
    const session = edgeSessionEvent(
      {
        changeType: 'created',
        entityType: 'sessions',
        entityId: 'x',
        after: { id: 'x', type: 'Bind', token: 'tok', apiSessionId: 'a', identityId: 'i', serviceId: 's1' },
      },
      '2026-11-29T10:00:00Z',
    );
    if (session) dispatcher.emit(session);
    await t.events.reportEntityCounts(t.deps.store);
    await new Promise((resolve) => setTimeout(resolve, 50));
  });
  after(() => t.close());

  it('makes every kind of event upstream wrote, with upstream’s fields and value types', () => {
    const ourShapes = new Map<string, Set<string>>();
    for (const event of ours) {
      const record = event as unknown as Record<string, unknown>;
      const kind = eventKind(record);
      ourShapes.set(kind, new Set([...(ourShapes.get(kind) ?? []), shapeOf(record)]));
    }
    const missing: string[] = [];
    const differing: string[] = [];
    for (const fixture of fixtures) {
      const kind = eventKind(fixture);
      const shapes = ourShapes.get(kind);
      if (!shapes) missing.push(kind);
      else if (!shapes.has(shapeOf(fixture)))
        differing.push(`${kind}\n  upstream ${shapeOf(fixture)}\n  ours     ${[...shapes].join('\n           ')}`);
    }
    assert.deepEqual(missing, []);
    assert.deepEqual(differing, []);
  });
});
