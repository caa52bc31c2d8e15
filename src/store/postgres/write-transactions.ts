// PostgreSQL's write transactions (issue 26): writes take turns only where they must. Every write holds one
// transaction-scoped advisory lock per schema, the write turn: strict writes (those that name no write areas, see
// WriteOptions.touches) hold it exclusively, as every write did before; writes that name their areas hold it shared
// plus an exclusive lock per area, so writes of different areas (session creates, logins, posture reports of
// different identities) run at once, on every instance, while a strict write (a policy or role change, anything
// undeclared) still sees and leaves a database no other writer is in the middle of. PostgreSQL queues a lock request
// behind an earlier conflicting waiter, so a strict write is not starved by a stream of area writes.
//
// Round trips: the locks are taken in the statement that begins the transaction, and the generation move (when the
// write is not bookkeeping) is sent together with COMMIT, so its row lock is held only while the commit completes.
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { Kysely, PostgresDialect, type KyselyPlugin } from 'kysely';
import { registerDialect } from '../connection.js';
import type { Database as Schema } from '../schema.js';
import type { Db, WriteOptions } from '../store.js';
import { postgresDialect } from './postgres-dialect.js';

/** The advisory lock spaces (the first of the two keys): the write turn, and the write areas. */
const WRITE_TURN = 0x5a495451;
const WRITE_AREA = 0x5a495452;

/** A 32-bit key for `name` within this schema, so controllers on other schemas of one database never wait for each other. */
function lockKey(schema: string, name: string): number {
  return createHash('sha256').update(`${schema}\0${name}`).digest().readInt32BE(0);
}

/** The statement that begins a write transaction and takes its locks (only integers are spliced into it). */
export function beginStatement(schema: string, touches: readonly string[] | undefined): string {
  const turn = lockKey(schema, '');
  if (touches === undefined) return `BEGIN; SELECT pg_advisory_xact_lock(${WRITE_TURN}, ${turn})`;
  // Area locks in one order everywhere, so two writes that share two areas cannot deadlock on them.
  const areas = [...new Set(touches.map((area) => lockKey(schema, area)))].sort((x, y) => x - y);
  const locks = [`pg_advisory_xact_lock_shared(${WRITE_TURN}, ${turn})`, ...areas.map((key) => `pg_advisory_xact_lock(${WRITE_AREA}, ${key})`)];
  return `BEGIN; SELECT ${locks.join(', ')}`;
}

const MOVE_GENERATION = 'UPDATE cluster_generation SET value = value + 1 WHERE id = 1 RETURNING value; COMMIT';

interface OpenTransaction {
  client: pg.PoolClient;
  open: boolean;
}

export interface WriteTransactions {
  /** Runs `work` in one write transaction; resolves with its result and the generation it committed (bookkeeping: none). */
  run<T>(work: (tx: Db) => Promise<T>, options: WriteOptions | undefined): Promise<{ result: T; committed: number | undefined }>;
}

/**
 * The write transactions of one pool. The work's handle is one Kysely instance for every transaction: its "pool"
 * hands out the connection of the transaction the calling code runs in (AsyncLocalStorage), so the transaction's
 * statements need no Kysely instance of their own and BEGIN can carry the locks.
 */
export function writeTransactions(pool: pg.Pool, schema: string, plugins: KyselyPlugin[]): WriteTransactions {
  const current = new AsyncLocalStorage<OpenTransaction>();
  const handles = new WeakMap<pg.PoolClient, { query: pg.PoolClient['query']; release: () => void }>();
  const transactionPool = {
    connect: () => {
      const open = current.getStore();
      // A handle kept past its transaction must not write outside it (or into another transaction).
      if (!open?.open) return Promise.reject(new Error('a transaction handle used outside its transaction'));
      let handle = handles.get(open.client);
      if (!handle) handles.set(open.client, (handle = { query: open.client.query.bind(open.client), release: () => undefined }));
      return Promise.resolve(handle);
    },
    end: () => Promise.resolve(),
  };
  // The driver needs only connect() and end() of its pool, and query() and release() of a client.
  const tx = new Kysely<Schema>({ dialect: new PostgresDialect({ pool: transactionPool }), plugins });
  registerDialect(tx, postgresDialect);

  return {
    async run(work, options) {
      const client = await pool.connect();
      const state: OpenTransaction = { client, open: true };
      try {
        await client.query(beginStatement(schema, options?.touches));
        const result = await current.run(state, () => work(tx as Db));
        const committed = await commit(client, options?.bookkeeping === true);
        return { result, committed };
      } catch (error) {
        // After a failed COMMIT the transaction is over already; ROLLBACK then only warns.
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        state.open = false;
        client.release();
      }
    },
  };
}

/**
 * Commits, with the generation move in the same round trip unless the write is bookkeeping. A transaction an error
 * aborted answers COMMIT with ROLLBACK rather than an error: work that caught a statement's error and went on must
 * not pass for committed.
 */
async function commit(client: pg.PoolClient, bookkeeping: boolean): Promise<number | undefined> {
  const answers = (await client.query(bookkeeping ? 'COMMIT' : MOVE_GENERATION)) as unknown as pg.QueryResult | pg.QueryResult[];
  const results = Array.isArray(answers) ? answers : [answers];
  if (results.at(-1)?.command !== 'COMMIT') throw new Error('the write transaction was rolled back (a statement in it had failed)');
  return bookkeeping ? undefined : Number((results[0]!.rows[0] as { value: number }).value);
}
