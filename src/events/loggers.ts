// The configured event loggers (`events:` in the settings): each handler opened with its bounded queue and
// subscribed to the dispatcher, as upstream's WireEventHandlers does at start.
import type { Logger } from 'pino';
import type { EventLoggerSetting } from '../settings/events.settings.js';
import { amqpWriter } from './amqp-writer.js';
import type { EventDispatcher } from './dispatcher.js';
import { openFileWriter } from './file-writer.js';
import { QueuedSink, stdoutWriter, type LineWriter } from './sinks.js';
import { SubscriptionError } from './subscriptions.js';

/** Events a handler queues at most before it drops (upstream's `bufferSize`, when larger). */
const DEFAULT_QUEUE = 10_000;

export interface OpenLogger {
  name: string;
  sink: QueuedSink;
  close(): void;
  /** Settles once the handler wrote what it held and closed. */
  readonly closed: Promise<void>;
}

export async function openLoggers(
  settings: readonly EventLoggerSetting[],
  dispatcher: EventDispatcher,
  logger: Logger,
): Promise<OpenLogger[]> {
  const opened: OpenLogger[] = [];
  try {
    for (const setting of settings) opened.push(await openLogger(setting, dispatcher, logger));
  } catch (error) {
    for (const each of opened) each.close();
    throw error;
  }
  return opened;
}

async function openLogger(
  setting: EventLoggerSetting,
  dispatcher: EventDispatcher,
  logger: Logger,
): Promise<OpenLogger> {
  const { handler } = setting;
  let writer: LineWriter;
  if (handler.type === 'file') {
    try {
      writer = await openFileWriter({
        path: handler.path,
        maxSizeBytes: handler.maxSizeMb * 1024 * 1024,
        maxBackups: handler.maxBackups,
      });
    } catch {
      throw new Error(`[events.${setting.name}] cannot write to log file path: ${handler.path}`);
    }
  } else if (handler.type === 'stdout') writer = stdoutWriter();
  else writer = amqpWriter(handler, logger);
  const sink = new QueuedSink(setting.name, Math.max(handler.bufferSize ?? 0, DEFAULT_QUEUE), writer, logger);
  let subscriber;
  try {
    subscriber = dispatcher.subscribe(setting.subscriptions, sink);
  } catch (error) {
    await sink.close();
    if (error instanceof SubscriptionError) throw new Error(`[events.${setting.name}] ${error.message}`);
    throw error;
  }
  logger.info(
    { handler: setting.name, type: handler.type, subscriptions: subscriber.interests.map((i) => i.namespace) },
    'event handler subscribed',
  );
  let closed: Promise<void> = Promise.resolve();
  return {
    name: setting.name,
    sink,
    close: () => {
      subscriber.unsubscribe();
      closed = sink.close();
    },
    get closed() {
      return closed;
    },
  };
}
