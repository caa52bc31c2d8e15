import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { eventLoggers } from './events.settings.js';

describe('the events: section as upstream’s docs write it', () => {
  it('reads named loggers with their subscriptions and handler', () => {
    const yaml = parse(`
jsonLogger:
  subscriptions:
    - type: metrics
      sourceFilter: .*
      metricFilter: .*xgress.*tx*.m1_rate
    - type: fabric.circuits
      include:
        - created
  handler:
    type: file
    format: json
    path: /tmp/ziti-events.log
    maxsizemb: 5
broker:
  subscriptions:
    - type: entityChange
  handler:
    type: amqp
    format: json
    url: amqp://localhost:5672
    queue: ziti
`) as unknown;
    assert.deepEqual(eventLoggers(yaml), [
      {
        name: 'jsonLogger',
        subscriptions: [
          { type: 'metrics', options: { sourceFilter: '.*', metricFilter: '.*xgress.*tx*.m1_rate' } },
          { type: 'fabric.circuits', options: { include: ['created'] } },
        ],
        handler: { type: 'file', path: '/tmp/ziti-events.log', maxSizeMb: 5, maxBackups: 0, bufferSize: undefined },
      },
      {
        name: 'broker',
        subscriptions: [{ type: 'entityChange', options: {} }],
        handler: {
          type: 'amqp',
          url: 'amqp://localhost:5672',
          queue: 'ziti',
          durable: true,
          autoDelete: false,
          exclusive: false,
          bufferSize: undefined,
        },
      },
    ]);
  });

  it('refuses what upstream refuses, with its messages', () => {
    const refused = (yaml: string) => () => eventLoggers(parse(yaml) as unknown);
    assert.throws(
      refused('a: {handler: {type: stdout, format: json}}'),
      /event handler a doesn't define any subscriptions/,
    );
    assert.throws(refused('a: {subscriptions: []}'), /no event handler defined for a/);
    assert.throws(
      refused('a: {subscriptions: [], handler: {type: kafka, format: json}}'),
      /invalid handler type kafka/,
    );
    assert.throws(refused('a: {subscriptions: [], handler: {type: stdout}}'), /'format' must be specified/);
    assert.throws(refused('a: {subscriptions: [], handler: {type: file, format: json}}'), /missing required 'path'/);
    assert.throws(refused('a: {subscriptions: [{include: x}], handler: {type: stdout, format: json}}'), /has no type/);
  });
});
