import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EventDispatcher } from './dispatcher.js';
import type { ZitiEvent } from './event-types.js';
import { SubscriptionError } from './subscriptions.js';

const dispatcher = (warnings: string[] = []) =>
  new EventDispatcher({ entityTypes: ['identities', 'services'], warn: (message) => warnings.push(message) });

const collect = (d: EventDispatcher, subscriptions: Parameters<EventDispatcher['subscribe']>[0]) => {
  const got: ZitiEvent[] = [];
  d.subscribe(subscriptions, { accept: (event) => got.push(event) });
  return got;
};

const circuit = (eventType: 'created' | 'deleted'): ZitiEvent => ({
  namespace: 'fabric.circuits',
  version: 2,
  event_type: eventType,
  circuit_id: 'c',
  timestamp: '2026-01-01T00:00:00Z',
  client_id: '',
  service_id: 's',
  terminator_id: 't',
  instance_id: '',
  path: { nodes: ['r'], links: null, ingress_id: '', egress_id: '' },
  link_count: 0,
  tags: null,
});

describe('subscriptions as upstream v1.1.8 reads them', () => {
  it('fabric.circuits include: one string or a list of known types; others are refused with upstream’s message', () => {
    const d = dispatcher();
    const got = collect(d, [{ type: 'fabric.circuits', options: { include: 'created' } }]);
    d.emit(circuit('created'));
    d.emit(circuit('deleted'));
    assert.deepEqual(
      got.map((event) => event.namespace === 'fabric.circuits' && event.event_type),
      ['created'],
    );
    assert.throws(
      () => d.subscribe([{ type: 'fabric.circuits', options: { include: ['born'] } }], { accept: () => undefined }),
      (error: unknown) =>
        error instanceof SubscriptionError &&
        error.message ===
          'invalid include born for fabric.circuits. valid values are [created pathUpdated deleted failed]',
    );
  });

  it('leaves out a type it does not know, with a warning, as upstream does', () => {
    const warnings: string[] = [];
    const subscriber = dispatcher(warnings).subscribe([{ type: 'fabric.nothing' }, { type: 'fabric.links' }], {
      accept: () => undefined,
    });
    assert.deepEqual(
      subscriber.interests.map((interest) => interest.namespace),
      ['fabric.links'],
    );
    assert.match(warnings[0] ?? '', /^invalid event type fabric\.nothing\. valid types are /);
  });

  it('entityChange include names entity types; parent events only with includeParentEvents; committed loses its type', () => {
    const d = dispatcher();
    assert.throws(
      () => d.subscribe([{ type: 'entityChange', options: { include: ['widgets'] } }], { accept: () => undefined }),
      /invalid entity type \[widgets\] in entityChange events include list/,
    );
    const got = collect(d, [{ type: 'entityChange', options: { include: ['services'] } }]);
    const base = { namespace: 'entityChange', eventId: 'e', timestamp: 't' } as const;
    d.emit({ ...base, eventType: 'created', entityType: 'identities', isParentEvent: false });
    d.emit({ ...base, eventType: 'created', entityType: 'services', isParentEvent: true });
    d.emit({ ...base, eventType: 'created', entityType: 'services', isParentEvent: false });
    d.emit({ ...base, eventType: 'committed', entityType: 'services', isParentEvent: false });
    assert.deepEqual(got, [
      { ...base, eventType: 'created', entityType: 'services', isParentEvent: false },
      { ...base, eventType: 'committed' },
    ]);
  });

  it('fabric.usage: version 2 by default, 3 on request with an include that narrows the usage map', () => {
    const d = dispatcher();
    assert.throws(
      () => d.subscribe([{ type: 'fabric.usage', options: { version: 4 } }], { accept: () => undefined }),
      /unsupported usage version/,
    );
    const v3 = collect(d, [{ type: 'fabric.usage', options: { version: '3', include: ['ingress.rx'] } }]);
    const v2 = collect(d, [{ type: 'fabric.usage' }]);
    const usage = {
      namespace: 'fabric.usage',
      version: 3,
      source_id: 'r',
      circuit_id: 'c',
      usage: { 'ingress.rx': 1, 'ingress.tx': 2 },
      interval_start_utc: 60,
      interval_length: 60,
      tags: null,
    } as const;
    d.emit(usage);
    d.emit({ ...usage, usage: { 'egress.tx': 3 } });
    assert.deepEqual(
      v3.map((event) => event.namespace === 'fabric.usage' && event.usage),
      [{ 'ingress.rx': 1 }],
    );
    assert.equal(v2.length, 0, 'a version 2 subscription takes no version 3 event');
  });

  it('edge.entityCounts interval is a Go duration (default 5m); bad ones are refused', () => {
    const d = dispatcher();
    const [interest] = d.subscribe([{ type: 'edge.entityCounts', options: { interval: '1m30s' } }], {
      accept: () => undefined,
    }).interests;
    assert.deepEqual(interest, { namespace: 'edge.entityCounts', intervalMs: 90_000 });
    assert.throws(
      () => d.subscribe([{ type: 'edge.entityCounts', options: { interval: 'soon' } }], { accept: () => undefined }),
      /invalid duration value for edge.entityCounts interval: 'soon'/,
    );
  });

  it('a subscriber of one type twice gets its events twice, as upstream registers it twice', () => {
    const d = dispatcher();
    const got = collect(d, [
      { type: 'fabric.circuits' },
      { type: 'fabric.circuits', options: { include: ['created'] } },
    ]);
    d.emit(circuit('created'));
    assert.equal(got.length, 2);
  });

  it('unsubscribing stops the events', () => {
    const d = dispatcher();
    const got: ZitiEvent[] = [];
    const subscriber = d.subscribe([{ type: 'fabric.circuits' }], { accept: (event) => got.push(event) });
    subscriber.unsubscribe();
    d.emit(circuit('created'));
    assert.deepEqual(got, []);
    assert.equal(d.wants('fabric.circuits'), false);
  });
});
