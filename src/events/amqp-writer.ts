// The `amqp` handler (upstream events/amqp_logger.go): each event published to a queue declared with the handler's
// options, content type application/json; reconnects with exponential back-off from 1 s to 5 min. Lines that arrive
// while it is away wait in the handler's bounded queue (sinks.ts), which drops past its size as upstream's does.
import { connect, type Channel, type ChannelModel } from 'amqplib';
import type { LineWriter, SinkLogger } from './sinks.js';

export interface AmqpOptions {
  url: string;
  queue: string;
  durable: boolean;
  autoDelete: boolean;
  exclusive: boolean;
}

export function amqpWriter(options: AmqpOptions, logger: SinkLogger): LineWriter {
  let connection: ChannelModel | undefined;
  let channel: Channel | undefined;
  let closed = false;
  let delayMs = 1_000;

  const open = async (): Promise<Channel> => {
    for (;;) {
      if (closed) throw new Error('the amqp handler is closed');
      try {
        connection = await connect(options.url);
        const opened = await connection.createChannel();
        await opened.assertQueue(options.queue, {
          durable: options.durable,
          autoDelete: options.autoDelete,
          exclusive: options.exclusive,
        });
        connection.on('close', () => (channel = undefined));
        connection.on('error', () => (channel = undefined));
        delayMs = 1_000;
        return opened;
      } catch (error) {
        logger.warn({ url: redacted(options.url), err: error, retryMs: delayMs }, 'unable to reach the amqp server');
        await new Promise((resolve) => setTimeout(resolve, delayMs).unref());
        delayMs = Math.min(delayMs * 2, 5 * 60_000);
      }
    }
  };

  return {
    async write(line) {
      channel ??= await open();
      const body = Buffer.from(line);
      // false: the channel's buffer is full; wait for it to drain before the next event.
      if (!channel.sendToQueue(options.queue, body, { contentType: 'application/json' }))
        await new Promise<void>((resolve) => channel?.once('drain', resolve) ?? resolve());
    },
    async close() {
      closed = true;
      await connection
        ?.close()
        .catch((error: unknown) =>
          logger.warn({ url: redacted(options.url), err: error }, 'could not close the amqp connection'),
        );
    },
  };
}

/** The broker URL without its password, for logs. */
function redacted(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'amqp url';
  }
}
