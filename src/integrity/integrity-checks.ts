// The controller's integrity scans as the API sees them: one at a time (check or fix), run in the background,
// with the last run's results kept until the next one starts (ziti controller/internal/routes/database_router.go).
import type { Logger } from 'pino';
import { formatTimestamp, type Clock } from '../lib/clock.js';
import type { Store } from '../store/store.js';
import { describeDifference, scanIntegrity } from './integrity-scan.js';
import type { IntegrityResult, IntegrityScans, IntegrityStatus } from './integrity-status.js';
import type { Snapshots } from './snapshots.js';
import { errorMessage } from '../lib/error-message.js';

export type { IntegrityResult, IntegrityStatus } from './integrity-status.js';

export interface IntegrityChecksOptions {
  /** The store without the request write queue: a repair is never refused for load. */
  store: Store;
  clock: Clock;
  logger: Logger;
  snapshots: Snapshots;
}

/** Upstream keeps this many results and then only notes that there were more. */
const MAX_RESULTS = 1000;

export class IntegrityChecks implements IntegrityScans {
  readonly #options: IntegrityChecksOptions;
  #status: IntegrityStatus = {
    inProgress: false,
    fixingErrors: false,
    tooManyErrors: false,
    startTime: null,
    endTime: null,
    error: null,
    results: null,
  };
  #running: Promise<void> | undefined;
  #abort: AbortController | undefined;

  constructor(options: IntegrityChecksOptions) {
    this.#options = options;
  }

  get status(): IntegrityStatus {
    return { ...this.#status, results: this.#status.results && [...this.#status.results] };
  }

  /** Starts a scan in the background; false when one (of either kind) is already running. */
  start(fix: boolean): boolean {
    if (this.#running) return false;
    const { clock, logger } = this.#options;
    this.#status = {
      inProgress: true,
      fixingErrors: fix,
      tooManyErrors: false,
      startTime: formatTimestamp(clock()),
      endTime: null,
      error: null,
      results: null,
    };
    const abort = (this.#abort = new AbortController());
    logger.info({ fix }, 'data integrity scan started');
    // The scan begins once the 202 is on its way, as upstream's goroutine does: started within the request, a small
    // database's scan finished before the answer left, so no client could ever see it running (and be refused).
    this.#running = new Promise((resolve) => setImmediate(resolve))
      .then(() => this.#run(fix, abort.signal))
      .finally(() => {
        this.#running = undefined;
      });
    return true;
  }

  /** Waits for the scan in progress, if any, to finish. */
  async settled(): Promise<void> {
    await this.#running;
  }

  /** Cancels a scan in progress (shutdown) and waits for it to stop. */
  async stop(): Promise<void> {
    this.#abort?.abort(new Error('the controller is stopping'));
    await this.#running;
  }

  async #run(fix: boolean, signal: AbortSignal): Promise<void> {
    const { store, clock, logger, snapshots } = this.#options;
    const started = performance.now();
    let found = 0;
    try {
      await scanIntegrity(store, {
        fix,
        clock,
        signal,
        report: (difference, isFixed) => {
          found++;
          const description = describeDifference(difference);
          logger.warn({ fixed: isFixed }, `data integrity error: ${description}`);
          this.#record({ description, fixed: isFixed });
        },
        beforeRepair: async () => void (await snapshots.write()),
        progress: (table, differences, ms) =>
          logger.info({ table, differences, ms: Math.round(ms) }, 'data integrity scan: table done'),
      });
    } catch (error) {
      this.#status.error = errorMessage(error);
      logger.error({ err: error }, 'data integrity scan failed');
    } finally {
      this.#status.inProgress = false;
      this.#status.endTime = formatTimestamp(clock());
      logger.info(
        { fix, differences: found, ms: Math.round(performance.now() - started) },
        'data integrity scan finished',
      );
    }
  }

  #record(result: IntegrityResult): void {
    const results = (this.#status.results ??= []);
    if (results.length < MAX_RESULTS) results.push(result);
    else this.#status.tooManyErrors = true;
  }
}
