// `npm run test:interop:events` (issue 31 item 7): the `amqp` handler against a real broker (RabbitMQ on this
// machine: `apt-get install rabbitmq-server`, listening on localhost), on our controller and on upstream v1.1.8, each
// started with the same `events:` section as upstream's docs write it. A router enrolls, comes online and goes
// offline, and an entity is created, updated and deleted; each controller's queue must hold those events as
// application/json messages, and every kind both published must have the same fields. Skips, saying why, when no
// broker answers at ZITI_TEST_AMQP_URL (default amqp://guest:guest@127.0.0.1:5672) or without the `ziti` binary.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { connect, type ChannelModel } from 'amqplib';
import { create, findZiti, startController, startRouter, tempDir, until, type ControllerKind } from './network.js';
import { eventKind, shapeOf } from '../events/event-shape.js';

const AMQP_URL = process.env.ZITI_TEST_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const binary = findZiti();

/** upstream's docs' amqp handler (durable queue, the defaults written out). */
const eventsSection = (queue: string) => `
events:
  amqpLogger:
    subscriptions:
      - type: fabric.routers
      - type: entityChange
        include:
          - configTypes
          - routers
    handler:
      type: amqp
      format: json
      url: "${AMQP_URL}"
      queue: ${queue}
      durable: true
      autoDelete: false
      exclusive: false
      noWait: false
`;

interface Received {
  event: Record<string, unknown>;
  contentType: unknown;
}

/** Why the broker cannot be used, or undefined when it answers. */
async function brokerProblem(): Promise<string | undefined> {
  try {
    const connection = await connect(AMQP_URL);
    await connection.close();
    return undefined;
  } catch (error) {
    return `no AMQP broker at ${AMQP_URL} (${error instanceof Error ? error.message : String(error)}): install and start rabbitmq-server, or set ZITI_TEST_AMQP_URL`;
  }
}

const skip = binary === undefined ? 'no ziti v1.1.8 binary (set ZITI_UPSTREAM_BIN)' : await brokerProblem();

describe(
  'events: the amqp handler against a real broker, on upstream v1.1.8 and on ours',
  { skip: skip ?? false },
  () => {
    let consumer: ChannelModel;
    const received = new Map<ControllerKind, Received[]>();
    const queues: string[] = [];

    before(async () => {
      consumer = await connect(AMQP_URL);
    });
    after(async () => {
      const channel = await consumer.createChannel();
      for (const queue of queues) await channel.deleteQueue(queue);
      await consumer.close();
    });

    /** Runs the actions on one controller while its queue is read. */
    async function run(kind: ControllerKind): Promise<Received[]> {
      const queue = `ziti-events-${kind}-${randomUUID()}`;
      queues.push(queue);
      const messages: Received[] = [];
      const channel = await consumer.createChannel();
      // Declared as the handler declares it (a declaration with other options would be refused by the broker).
      await channel.assertQueue(queue, { durable: true, autoDelete: false, exclusive: false });
      await channel.consume(
        queue,
        (message) => {
          if (message)
            messages.push({
              event: JSON.parse(message.content.toString('utf8')) as Record<string, unknown>,
              contentType: message.properties.contentType,
            });
        },
        { noAck: true },
      );
      const work = tempDir(`ziti-amqp-${kind}-`);
      const { controller, ctrlEndpoint } = await startController(kind, work, eventsSection(queue));
      try {
        const router = await startRouter(binary!, controller, ctrlEndpoint, work, { name: `amqp-er-${kind}` });
        const configType = await create(controller, '/config-types', { name: 'amqp-config-type', schema: {} });
        // upstream refuses a config type PATCH without its schema (config_type_router.go Patch): 400.
        const patched = await controller.api('PATCH', `/config-types/${configType}`, {
          tags: { changed: 'yes' },
          schema: {},
        });
        assert.equal(patched.status, 200, JSON.stringify(patched.data));
        await controller.api('DELETE', `/config-types/${configType}`);
        const kinds = () => new Set(messages.map((message) => eventKind(message.event)));
        await until(
          () => `${kind}: router online and config type deleted in ${queue}: ${[...kinds()].join(', ')}`,
          () =>
            Promise.resolve(
              kinds().has('fabric.routers router-online') &&
                messages.some(
                  (message) => message.event.eventType === 'deleted' && message.event.entityType === 'configTypes',
                ),
            ),
          30_000,
        );
        await router.program.stop();
        return messages;
      } finally {
        await controller.stop();
        await channel.close();
        if (!process.env.ZITI_INTEROP_KEEP) rmSync(work, { recursive: true, force: true });
      }
    }

    it("each controller publishes its router's and entities' events to its queue as application/json", async () => {
      for (const kind of ['upstream', 'ours'] as const) received.set(kind, await run(kind));
      for (const [kind, messages] of received) {
        const kinds = [...new Set(messages.map((message) => eventKind(message.event)))].sort();
        process.stdout.write(`${kind}: ${messages.length} messages, kinds: ${kinds.join(', ')}\n`);
        for (const expected of [
          'fabric.routers router-online',
          'entityChange created',
          'entityChange updated',
          'entityChange deleted',
          'entityChange committed',
        ])
          assert.ok(kinds.includes(expected), `${kind} published no ${expected}`);
        assert.deepEqual([...new Set(messages.map((message) => message.contentType))], ['application/json']);
        // The include list admits configTypes and routers only.
        const types = new Set(messages.map((message) => message.event.entityType).filter(Boolean));
        assert.deepEqual(
          [...types].filter((type) => type !== 'configTypes' && type !== 'routers'),
          [],
        );
      }
    });

    it('every kind of event both published has the same fields, with values of the same types', () => {
      const shapes = (messages: Received[] | undefined) => {
        const byKind = new Map<string, Set<string>>();
        for (const { event } of messages ?? [])
          byKind.set(eventKind(event), new Set([...(byKind.get(eventKind(event)) ?? []), shapeOf(event)]));
        return byKind;
      };
      const [ours, theirs] = [shapes(received.get('ours')), shapes(received.get('upstream'))];
      const differences: string[] = [];
      for (const [kind, mine] of ours) {
        const upstream = theirs.get(kind);
        if (!upstream) continue;
        for (const shape of mine)
          if (!upstream.has(shape)) differences.push(`${kind}: ours ${shape}\n  upstream ${[...upstream].join(' | ')}`);
      }
      assert.deepEqual(differences, []);
    });
  },
);
