// Walks a table in id order a chunk at a time, sizing chunks so each holds the event loop for a few milliseconds and
// yielding between them: a scan of a large database shares the process with requests instead of stalling them.
import { rowsAfter, type Row, type RowFilter } from '../store/queries/table-rows.js';
import type { Db, TableName } from '../store/store.js';

export type { Row } from '../store/queries/table-rows.js';

/** A text column of a scanned row (ids, times, PEM): text on both stores, so anything else is shown as text. */
export const textOf = (value: unknown): string => (typeof value === 'string' ? value : String(value));

export interface WalkSource {
  table: TableName;
  /** Columns to read besides `id`. */
  columns: readonly string[];
  /** Restricts the walk to some rows (edge routers among routers, rows with a certificate). */
  filter?: RowFilter;
}

/** A chunk's rows and the id range it covers: (after, upTo]; the last chunk's `upTo` is undefined (no end). */
export interface Chunk {
  rows: Row[];
  after: string | undefined;
  upTo: string | undefined;
}

/** Sizes chunks from the time the previous ones took, and stops a walk when asked to. */
export class ChunkPacer {
  #size = 64;

  constructor(
    /** Milliseconds a chunk should take, reading and handling included. */
    private readonly targetMs = 4,
    private readonly signal?: AbortSignal,
  ) {}

  get size(): number {
    return this.#size;
  }

  /** Adjusts the next chunk's size to how long this one took. */
  took(ms: number): void {
    if (ms < this.targetMs / 2) this.#size = Math.min(this.#size * 2, 10_000);
    else if (ms > this.targetMs * 2) this.#size = Math.max(Math.floor(this.#size / 2), 1);
  }

  /** Lets other work run, then throws if the walk was cancelled meanwhile. */
  async pause(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    this.signal?.throwIfAborted();
  }
}

/**
 * Calls `handle` for each chunk of `source` in id order, from after `start`; the last call covers every id after the
 * last row. `handle` returns false to stop early: the walk then returns where to resume (undefined when complete).
 */
export async function walkChunks(
  db: Db,
  source: WalkSource,
  pacer: ChunkPacer,
  handle: (chunk: Chunk) => Promise<boolean | void> | boolean | void,
  start?: string,
): Promise<string | undefined> {
  let after = start;
  for (;;) {
    const started = performance.now();
    const rows = await rowsAfter(db, source.table, source.columns, after, pacer.size, source.filter);
    const isLast = rows.length < pacer.size;
    const upTo = isLast ? undefined : textOf(rows.at(-1)?.id);
    const isStopped = (await handle({ rows, after, upTo })) === false;
    pacer.took(performance.now() - started);
    if (isLast) return undefined;
    after = upTo;
    if (isStopped) return after;
    await pacer.pause();
  }
}
