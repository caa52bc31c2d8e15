// Where configured handlers put events: one JSON line each, through a bounded queue per handler. Upstream's
// formatter blocks the emitter when its channel is full; here a handler that cannot keep up drops events and counts
// them (a warning at most every 10 s), so a stuck disk or broker never holds requests or memory.
import { goJsonText } from './go-json.js';
import type { ZitiEvent } from './event-types.js';
import type { EventSink } from './dispatcher.js';

/** Writes one line (no newline) and settles once it is handed on; closes at the end. */
export interface LineWriter {
  write(line: string): Promise<void>;
  close(): Promise<void>;
}

export interface SinkLogger {
  warn(fields: object, message: string): void;
}

const WARN_EVERY_MS = 10_000;

export class QueuedSink implements EventSink {
  readonly #queue: string[] = [];
  #writing = false;
  #closed = false;
  #dropped = 0;
  #droppedSinceWarning = 0;
  #lastWarningAt = -Infinity;
  #idle: (() => void) | undefined;

  constructor(
    readonly name: string,
    readonly capacity: number,
    private readonly writer: LineWriter,
    private readonly logger: SinkLogger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Events dropped so far because the queue was full. */
  get dropped(): number {
    return this.#dropped;
  }

  accept(event: ZitiEvent): void {
    if (this.#closed) return;
    if (this.#queue.length >= this.capacity) {
      this.#dropped++;
      this.#droppedSinceWarning++;
      const at = this.now();
      if (at - this.#lastWarningAt >= WARN_EVERY_MS) {
        this.logger.warn(
          {
            handler: this.name,
            dropped: this.#droppedSinceWarning,
            droppedTotal: this.#dropped,
            queued: this.capacity,
          },
          'event handler cannot keep up: events dropped',
        );
        this.#lastWarningAt = at;
        this.#droppedSinceWarning = 0;
      }
      return;
    }
    this.#queue.push(goJsonText(event));
    if (!this.#writing) void this.#drain();
  }

  async #drain(): Promise<void> {
    this.#writing = true;
    try {
      for (let line = this.#queue.shift(); line !== undefined; line = this.#queue.shift()) {
        try {
          await this.writer.write(line);
        } catch (error) {
          this.logger.warn({ handler: this.name, err: error }, 'event handler could not write an event');
        }
      }
    } finally {
      this.#writing = false;
      this.#idle?.();
    }
  }

  /** Writes what is queued (waiting at most `timeoutMs`), then closes the writer. */
  async close(timeoutMs = 2_000): Promise<void> {
    this.#closed = true;
    if (this.#writing) {
      await Promise.race([
        new Promise<void>((resolve) => (this.#idle = resolve)),
        new Promise<void>((resolve) => setTimeout(resolve, timeoutMs).unref()),
      ]);
    }
    await this.writer.close();
  }
}

/** Standard output (upstream's `stdout` handler). */
export function stdoutWriter(): LineWriter {
  return {
    write: (line) =>
      new Promise<void>((resolve, reject) =>
        process.stdout.write(`${line}\n`, (error) => (error ? reject(error) : resolve())),
      ),
    close: () => Promise.resolve(),
  };
}
