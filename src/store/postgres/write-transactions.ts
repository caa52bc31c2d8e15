// PostgreSQL's write transactions (issue 26): writes take turns only where they must. Every write holds one
// transaction-scoped advisory lock per schema, the write turn: strict writes (those that name no write areas, see
// WriteOptions.touches) hold it exclusively, as every write did before; writes that name their areas hold it shared
// plus an exclusive lock per area, so writes of different areas (session creates, logins, posture reports of
// different identities) run at once, on every instance, while a strict write (a policy or role change, anything
// undeclared) still sees and leaves a database no other writer is in the middle of. PostgreSQL queues a lock request
// behind an earlier conflicting waiter, so a strict write is not starved by a stream of area writes.
//
// Round trips: the locks are taken in the statement that begins the transaction, and the generation move (when the
// write is not bookkeeping) is sent together with COMMIT, so its row lock is held only while the commit completes;
// writes running at once move different rows of it (shards), so their commits can share a WAL flush.
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { Kysely, PostgresDialect, type KyselyPlugin } from 'kysely';
import type { Database as Schema } from '../schema.js';
import { GENERATION_SHARDS } from '../migrations/migrate.js';
import type { Db, WriteOptions } from '../store.js';

/** The advisory lock spaces (the first of the two keys): the write turn, and the write areas. */
const WRITE_TURN = 0x5a495451;
const WRITE_AREA = 0x5a495452;

/** A 32-bit key for `name` within this schema, so controllers on other schemas of one database never wait for each other. */
function lockKey(schema: string, name: string): number {
  return createHash('sha256').update(`${schema}\0${name}`).digest().readInt32BE(0);
}

/** The statement that begins a write transaction and takes its locks (only integers are spliced into it). */
export function beginStatement(schema: string, options: Pick<WriteOptions, 'touches' | 'reads'> | undefined): string {
  const turn = lockKey(schema, '');
  if (options?.touches === undefined) return `BEGIN; SELECT pg_advisory_xact_lock(${WRITE_TURN}, ${turn})`;
  // Each area once, exclusive if the write changes it, and all in one order everywhere, so two writes that share
  // two areas cannot deadlock on them.
  const areas = new Map<number, boolean>();
  for (const area of options.reads ?? []) areas.set(lockKey(schema, area), false);
  for (const area of options.touches) areas.set(lockKey(schema, area), true);
  const locks = [...areas].sort(([x], [y]) => x - y).map(([key, exclusive]) => `pg_advisory_xact_lock${exclusive ? '' : '_shared'}(${WRITE_AREA}, ${key})`);
  return `BEGIN; SELECT ${[`pg_advisory_xact_lock_shared(${WRITE_TURN}, ${turn})`, ...locks].join(', ')}`;
}

/**
 * Moves one shard of the generation (GENERATION_SHARDS) and commits. It returns the sum as the statement's snapshot
 * saw it, plus this move: never more than the sum once this commits, so taken as seen it can only make a later
 * refresh move the generation once more, never hide a commit.
 */
const moveGeneration = (shard: number) =>
  `UPDATE cluster_generation_shards SET value = value + 1 WHERE id = ${shard} RETURNING (SELECT sum(value) FROM cluster_generation_shards) + 1 AS value; COMMIT`;

export interface WriteTransactions {
  /** Runs `work` in one write transaction; resolves with its result and the generation it committed (bookkeeping: none). */
  run<T>(work: (tx: Db) => Promise<T>, options: WriteOptions | undefined): Promise<{ result: T; committed: number | undefined }>;
}

/**
 * The write transactions of one pool. Each gets a query builder of its own whose "pool" is the transaction's one
 * connection, so BEGIN can carry the locks while the work uses the builder as usual (a builder costs less than
 * tracking the transaction through AsyncLocalStorage, which would slow every promise of the process). It shares
 * the store's adapter, as Kysely's own transactions do: the store's compiled query shapes (prepared.ts) and its
 * dialect are found by the adapter.
 */
export function writeTransactions(pool: pg.Pool, schema: string, store: Kysely<Schema>, plugins: KyselyPlugin[]): WriteTransactions {
  const adapter = store.getExecutor().adapter;
  class TransactionDialect extends PostgresDialect {
    override createAdapter() {
      return adapter;
    }
  }
  return {
    async run(work, options) {
      const client = await pool.connect();
      let open = true;
      // A connection whose ROLLBACK failed may still be inside the transaction: the pool must not hand it out again.
      let broken: Error | undefined;
      const handle = { query: client.query.bind(client), release: () => undefined };
      const connection = {
        // A handle kept past its transaction must not write outside it (or into another transaction).
        connect: () => (open ? Promise.resolve(handle) : Promise.reject(new Error('a transaction handle used outside its transaction'))),
        end: () => Promise.resolve(),
      };
      // The driver needs only connect() and end() of its pool, and query() and release() of a client.
      const tx = new Kysely<Schema>({ dialect: new TransactionDialect({ pool: connection }), plugins });
      try {
        await client.query(beginStatement(schema, options));
        const result = await work(tx as Db);
        // Writes that may run at once move a shard at random, a strict one (which runs alone) any.
        const shard = options?.touches === undefined ? 0 : Math.floor(Math.random() * GENERATION_SHARDS);
        const committed = await commit(client, options?.bookkeeping === true ? undefined : shard);
        return { result, committed };
      } catch (error) {
        // After a failed COMMIT the transaction is over already; ROLLBACK then only warns.
        await client.query('ROLLBACK').catch((failure: unknown) => {
          broken = failure instanceof Error ? failure : new Error(String(failure));
        });
        throw error;
      } finally {
        open = false;
        client.release(broken);
      }
    },
  };
}

/**
 * Commits, with the generation move in the same round trip unless the write is bookkeeping. A transaction an error
 * aborted answers COMMIT with ROLLBACK rather than an error: work that caught a statement's error and went on must
 * not pass for committed.
 */
async function commit(client: pg.PoolClient, shard: number | undefined): Promise<number | undefined> {
  const bookkeeping = shard === undefined;
  const answers = (await client.query(bookkeeping ? 'COMMIT' : moveGeneration(shard))) as unknown as pg.QueryResult | pg.QueryResult[];
  const results = Array.isArray(answers) ? answers : [answers];
  if (results.at(-1)?.command !== 'COMMIT') throw new Error('the write transaction was rolled back (a statement in it had failed)');
  return bookkeeping ? undefined : Number((results[0]!.rows[0] as { value: number }).value);
}
