// Database snapshots: a consistent copy written beside the database file (or where an admin names) while the
// controller keeps serving. A PostgreSQL database has no such file copy (its own tools, pg_dump or base backups, take
// it): there both snapshot operations answer 501 saying so, and an integrity fix repairs without one.
import { chmodSync, existsSync } from 'node:fs';
import { basename, dirname } from 'node:path';
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
  create(): Promise<string> {
    return this.#limited(async () => {
      const file = await this.write();
      // Only a store without snapshots writes none, refused before.
      if (file === undefined) throw ApiError.withMessage('NOT_IMPLEMENTED', NO_SNAPSHOTS);
      return file;
    });
  }

  /**
   * The fabric's `POST /database/snapshot` with a path (`ziti fabric db snapshot [path]`), as upstream's
   * SnapshotDatabaseToFile: the path may name DB_DIR, DB_FILE, DATE (YYYYMMDD), TIME (hhmmss, UTC here) and
   * RAFT_INDEX (0: no raft); empty is `DB_DIR/DB_FILE-DATE-TIME`. A file already there is refused, as upstream does.
   * Shares the one-a-minute limit with `create`. Returns the path written.
   */
  createAt(template: string): Promise<string> {
    return this.#limited(async () => {
      const { backup } = this.#options.store;
      if (!backup) throw ApiError.withMessage('NOT_IMPLEMENTED', NO_SNAPSHOTS);
      const stamped = stamp(this.#options.clock());
      const [date, time] = [stamped.slice(0, 8), stamped.slice(9)];
      const path = (template === '' ? 'DB_DIR/DB_FILE-DATE-TIME' : template)
        .replaceAll('DATE', date)
        .replaceAll('TIME', time)
        .replaceAll('RAFT_INDEX', '0')
        .replaceAll('DB_DIR', dirname(this.#options.databaseFile))
        .replaceAll('DB_FILE', basename(this.#options.databaseFile));
      // upstream's wording: the CLI shows it as the error's cause.
      if (existsSync(path)) throw ApiError.withMessage('UNHANDLED', `bolt db backup already exists [${path}]`);
      await this.#backupTo(path, backup);
      return path;
    });
  }

  async #limited(write: () => Promise<string>): Promise<string> {
    if (!this.#options.store.backup) throw ApiError.withMessage('NOT_IMPLEMENTED', NO_SNAPSHOTS);
    const now = this.#options.clock().getTime();
    if (this.#isWriting || (this.#lastAt !== undefined && now < this.#lastAt + MIN_INTERVAL_MS))
      throw new ApiError('RATE_LIMITED');
    this.#isWriting = true;
    try {
      const file = await write();
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
    await this.#backupTo(file, backup);
    return file;
  }

  async #backupTo(file: string, backup: (file: string) => Promise<void>): Promise<void> {
    const started = performance.now();
    await backup(file);
    // It holds what the database holds (password hashes, enrollment tokens): readable by the controller only.
    chmodSync(file, 0o600);
    this.#options.logger.info({ file, ms: Math.round(performance.now() - started) }, 'database snapshot written');
  }
}

/** `YYYYMMDD-HHMMSS` in UTC (upstream uses the local time zone; UTC keeps names unambiguous across hosts). */
function stamp(date: Date): string {
  const iso = date.toISOString();
  return `${iso.slice(0, 10).replaceAll('-', '')}-${iso.slice(11, 19).replaceAll(':', '')}`;
}
