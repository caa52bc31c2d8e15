// The dial counters behind `services` events (upstream network/service_counters.go on a metrics UsageRegistry): per
// counter name and `<serviceId>:<terminatorId>`, counts in one-minute intervals; each finished interval is reported
// once as `service.events` events (dispatcher_service.go serviceEventAdapter).
import type { Clock } from '../lib/clock.js';
import type { EventDispatcher } from './dispatcher.js';

const INTERVAL_SECONDS = 60;

export class ServiceCounters {
  /** name → interval start (s) → id → count */
  readonly #counts = new Map<string, Map<number, Map<string, number>>>();
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly dispatcher: EventDispatcher,
    private readonly clock: Clock,
  ) {}

  count(name: string, id: string, at: Date): void {
    if (!this.dispatcher.wants('service.events')) return;
    const start = intervalStart(at);
    let intervals = this.#counts.get(name);
    if (!intervals) this.#counts.set(name, (intervals = new Map<number, Map<string, number>>()));
    let ids = intervals.get(start);
    if (!ids) intervals.set(start, (ids = new Map<string, number>()));
    ids.set(id, (ids.get(id) ?? 0) + 1);
  }

  /** Reports the intervals that have ended. */
  flush(): void {
    const current = intervalStart(this.clock());
    for (const [name, intervals] of this.#counts) {
      for (const [start, ids] of intervals) {
        if (start >= current) continue;
        intervals.delete(start);
        for (const [combinedId, count] of ids) {
          const [serviceId = '', terminatorId = ''] = combinedId.split(':');
          this.dispatcher.emit({
            namespace: 'service.events',
            version: 2,
            event_type: name,
            service_id: serviceId,
            terminator_id: terminatorId,
            count,
            interval_start_utc: start,
            interval_length: INTERVAL_SECONDS,
          });
        }
      }
    }
  }

  start(reportEveryMs = INTERVAL_SECONDS * 1000): void {
    this.#timer ??= setInterval(() => this.flush(), reportEveryMs).unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

const intervalStart = (at: Date) => Math.floor(at.getTime() / 1000 / INTERVAL_SECONDS) * INTERVAL_SECONDS;
