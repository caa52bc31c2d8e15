// Database snapshots: a consistent copy written beside the database file while the controller keeps serving. A
// PostgreSQL database has no such file copy (its own tools, pg_dump or base backups, take it): there the snapshot
// operation answers 501, and an integrity fix repairs without one.
import { chmodSync, existsSync } from 'node:fs';
import type { Logger } from 'pino';
import { ApiError } from '../errors/api-error.js';
import type { Clock } from '../lib/clock.js';
import type { Store } from '../store/store.js';

export interface SnapshotsOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  /** The database file; snapshots are written beside it as `<file>-YYYYMMDD-HHMMSS`. */
  databaseFile: string;
}

const NO_SNAPSHOTS =
  'this controller keeps its data in PostgreSQL, which takes snapshots with its own tools (pg_dump, base backups): no snapshot was written';

/** Upstream refuses a snapshot within a minute of the last one (ziti controller/network/network.go SnapshotDatabase). */
const MIN_INTERVAL_MS = 60_000;

export class Snapshots {
  readonly #options: SnapshotsOptions;
  #lastAt: number | undefined;
  #isWriting = false;

  constructor(options: SnapshotsOptions) {
    this.#options = options;
  }

  /** `POST /database/snapshot`: at most one a minute, else 429 RATE_LIMITED; returns the file written. */
  async create(): Promise<string> {
    if (!this.#options.store.backup) throw ApiError.withMessage('NOT_IMPLEMENTED', NO_SNAPSHOTS);
    const now = this.#options.clock().getTime();
    if (this.#isWriting || (this.#lastAt !== undefined && now < this.#lastAt + MIN_INTERVAL_MS))
      throw new ApiError('RATE_LIMITED');
    this.#isWriting = true;
    try {
      const file = await this.write();
      // Only a store without snapshots writes none, refused above.
      if (file === undefined) throw ApiError.withMessage('NOT_IMPLEMENTED', NO_SNAPSHOTS);
      this.#lastAt = now;
      return file;
    } finally {
      this.#isWriting = false;
    }
  }

  /**
   * A snapshot regardless of the rate limit (taken before an integrity fix, as upstream does); undefined, with a
   * warning logged, where the store has no snapshots.
   */
  async write(): Promise<string | undefined> {
    const { backup } = this.#options.store;
    if (!backup) {
      this.#options.logger.warn(NO_SNAPSHOTS);
      return undefined;
    }
    const file = `${this.#options.databaseFile}-${stamp(this.#options.clock())}`;
    // Upstream keeps a snapshot that already has this name (one per second at most).
    if (existsSync(file)) return file;
    const started = performance.now();
    await backup(file);
    // It holds what the database holds (password hashes, enrollment tokens): readable by the controller only.
    chmodSync(file, 0o600);
    this.#options.logger.info({ file, ms: Math.round(performance.now() - started) }, 'database snapshot written');
    return file;
  }
}

/** `YYYYMMDD-HHMMSS` in UTC (upstream uses the local time zone; UTC keeps names unambiguous across hosts). */
function stamp(date: Date): string {
  const iso = date.toISOString();
  return `${iso.slice(0, 10).replaceAll('-', '')}-${iso.slice(11, 19).replaceAll(':', '')}`;
}
