// Walks a table in id order a chunk at a time, sizing chunks so each holds the event loop for a few milliseconds and
// yielding between them: a scan of a large database shares the process with requests instead of stalling them.
import { sql } from 'kysely';
import type { Db } from '../store/store.js';

export type Row = Record<string, unknown>;

export interface WalkSource {
  table: string;
  /** Columns to read besides `id`. */
  columns: readonly string[];
  /** Restricts the walk to some rows (edge routers among routers), as SQL over the table's columns. */
  where?: string;
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
  const columns = sql.join(['id', ...source.columns].map((column) => sql.ref(column)));
  const restrict = source.where ? sql` AND ${sql.raw(source.where)}` : sql``;
  let after = start;
  for (;;) {
    const started = performance.now();
    const from = after === undefined ? sql`` : sql` AND id > ${after}`;
    const { rows } = await sql<Row>`SELECT ${columns} FROM ${sql.table(source.table)} WHERE 1 = 1${from}${restrict} ORDER BY id LIMIT ${pacer.size}`.execute(db);
    const isLast = rows.length < pacer.size;
    const upTo = isLast ? undefined : (rows[rows.length - 1]!.id as string);
    const isStopped = (await handle({ rows, after, upTo })) === false;
    pacer.took(performance.now() - started);
    if (isLast) return undefined;
    after = upTo;
    if (isStopped) return after;
    await pacer.pause();
  }
}

/** `column` within a chunk's id range, as SQL. */
export function inRange(column: string, chunk: Pick<Chunk, 'after' | 'upTo'>) {
  const ref = sql.ref(column);
  const lower = chunk.after === undefined ? sql`1 = 1` : sql`${ref} > ${chunk.after}`;
  return chunk.upTo === undefined ? lower : sql`${lower} AND ${ref} <= ${chunk.upTo}`;
}
