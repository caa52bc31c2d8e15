// PostgreSQL's write transactions (issue 26): writes take turns only where they must. Every write holds one
// transaction-scoped advisory lock per schema, the write turn: strict writes (those that name no write areas, see
// WriteOptions.touches) hold it exclusively, as every write did before; writes that name their areas hold it shared
// plus an exclusive lock per area, so writes of different areas (session creates, logins, posture reports of
// different identities) run at once, on every instance, while a strict write (a policy or role change, anything
// undeclared) still sees and leaves a database no other writer is in the middle of. PostgreSQL queues a lock request
// behind an earlier conflicting waiter, so a strict write is not starved by a stream of area writes.
//
// Round trips: the connection pipelines (pg's pipeline mode), so BEGIN with the locks is sent with the work's first
// statement and answered in its round trip (the server runs that statement, and takes its snapshot, only once the
// locks are held); writes whose answers the work does not need (connection.ts sendAhead: the entity change record)
// are answered with COMMIT; the change log's row (when the write changed what caches may hold, changes.ts) is
// inserted in the round trip of COMMIT. It locks no shared row, so commits running at once can share a WAL flush.
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { Kysely, PostgresDialect, type KyselyPlugin } from 'kysely';
import type { Database as Schema } from '../schema.js';
import { commitKeys, noteWrites, writtenTables } from '../changes.js';
import { aheadSenders } from '../connection.js';
import type { ChangeKey } from '../store.js';
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
  const locks = [...areas]
    .sort(([x], [y]) => x - y)
    .map(([key, exclusive]) => `pg_advisory_xact_lock${exclusive ? '' : '_shared'}(${WRITE_AREA}, ${key})`);
  return `BEGIN; SELECT ${[`pg_advisory_xact_lock_shared(${WRITE_TURN}, ${turn})`, ...locks].join(', ')}`;
}

/** Logs the commit's change keys and commits; the answer's first row holds the writing transaction's id. */
const logAndCommit = (client: pg.PoolClient, keys: readonly ChangeKey[]) =>
  `INSERT INTO cluster_changes (xid, keys) VALUES (pg_current_xact_id(), ${client.escapeLiteral(JSON.stringify(keys))}) RETURNING xid::text AS xid; COMMIT`;

/** What a committed write changed: its keys and, when it logged them, its transaction's id (undefined: nothing logged). */
export interface Committed {
  keys: ChangeKey[];
  xid: string | undefined;
  /** The tables it changed rows in, bookkeeping included. */
  tables: ReadonlySet<string>;
}

export interface WriteTransactions {
  /** Runs `work` in one write transaction; resolves with its result and what it changed. */
  run<T>(work: (tx: Db) => Promise<T>, options: WriteOptions | undefined): Promise<{ result: T; committed: Committed }>;
}

/**
 * The write transactions of one pool. Each gets a query builder of its own whose "pool" is the transaction's one
 * connection, so BEGIN can carry the locks while the work uses the builder as usual (a builder costs less than
 * tracking the transaction through AsyncLocalStorage, which would slow every promise of the process). It shares
 * the store's adapter, as Kysely's own transactions do: the store's compiled query shapes (prepared.ts) and its
 * dialect are found by the adapter.
 */
export function writeTransactions(
  pool: pg.Pool,
  schema: string,
  store: Kysely<Schema>,
  plugins: KyselyPlugin[],
): WriteTransactions {
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
      // Every statement goes through here, so the tables it writes are known at COMMIT (changes.ts).
      const written = new Set<string>();
      // The tables of statements not answered yet (sent ahead): counted as written at COMMIT, as they will be. One
      // entry per statement: statements of the same text share their tables' array (changes.ts keeps it by text).
      const unanswered = new Set<{ tables: readonly string[] }>();
      // The connection is in pipeline mode (postgres-store.ts): each statement goes on the wire at once, behind the
      // ones before it, and the server answers them in order, so statements run at once (Promise.all over one
      // transaction) keep their order without waiting for each other's answers.
      const toServer = client.query.bind(client);
      const send = (args: unknown[]): Promise<unknown> => {
        // Reflect.apply answers `any`: pg's promise, looked at below only through type guards.
        const answer = Promise.resolve<unknown>(Reflect.apply(toServer, undefined, args));
        const tables = typeof args[0] === 'string' ? writtenTables(args[0]) : [];
        if (tables.length === 0) return answer;
        const pending = { tables };
        unanswered.add(pending);
        return answer.then(
          (result: unknown) => {
            unanswered.delete(pending);
            noteWrites(tables, rowCountOf(result), written);
            return result;
          },
          (error: unknown) => {
            unanswered.delete(pending);
            throw error;
          },
        );
      };
      // A proxy keeps pg's overloaded signature, which the driver expects, while it looks at each statement's text.
      const query = new Proxy(client.query.bind(client), {
        apply: (_send, _self, args: unknown[]) => send(args),
      });
      const handle = { query, release: () => undefined };
      const connection = {
        // A handle kept past its transaction must not write outside it (or into another transaction).
        connect: () =>
          open
            ? Promise.resolve(handle)
            : Promise.reject(new Error('a transaction handle used outside its transaction')),
        end: () => Promise.resolve(),
      };
      // The driver needs only connect() and end() of its pool, and query() and release() of a client.
      const tx = new Kysely<Schema>({ dialect: new TransactionDialect({ pool: connection }), plugins });
      // BEGIN with the locks: before the work starts, or (beginsAtFirstStatement) ahead of its first statement, in the
      // same round trip: the server runs that statement (and takes its snapshot) only once the locks are held.
      const begun = failureOf(send([beginStatement(schema, options)]));
      // The failures of what the work sent without waiting for its answer (connection.ts sendAhead): each fails the
      // commit with its own error.
      const ahead: Promise<Error | undefined>[] = [];
      aheadSenders.set(tx, (statement) => {
        const answer = send([statement.sql, statement.parameters]);
        ahead.push(failureOf(answer));
        return answer.then((result) => ({ rows: rowsOf(result) }));
      });
      try {
        if (options?.beginsAtFirstStatement !== true) await throwIfFailed(begun);
        let result: Awaited<ReturnType<typeof work>>;
        try {
          result = await work(tx);
        } catch (error) {
          // A refused lock fails every statement after it as "transaction aborted": the lock's error is the cause.
          throw (await begun) ?? error;
        }
        for (const { tables } of unanswered) noteWrites(tables, undefined, written);
        const keys = commitKeys(written, options);
        return { result, committed: { keys, xid: await commit(client, keys, [begun, ...ahead]), tables: written } };
      } catch (error) {
        // After a failed COMMIT the transaction is over already; ROLLBACK then only warns. It is answered after every
        // statement sent before it, so nothing of this transaction is still on its way when the connection goes back.
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

/** The error a statement failed with, or undefined once it succeeded (never rejects). */
const failureOf = (answer: Promise<unknown>): Promise<Error | undefined> =>
  answer.then(
    () => undefined,
    (error: unknown) => (error instanceof Error ? error : new Error(`a statement failed: ${String(error)}`)),
  );

async function throwIfFailed(failed: Promise<Error | undefined>): Promise<void> {
  const failure = await failed;
  if (failure !== undefined) throw failure;
}

/** The rows of pg's answer to one statement. */
function rowsOf(result: unknown): unknown[] {
  return typeof result === 'object' && result !== null && 'rows' in result && Array.isArray(result.rows)
    ? result.rows
    : [];
}

/** A write's count of changed rows, from pg's answer (undefined when it has none). */
function rowCountOf(result: unknown): number | undefined {
  return typeof result === 'object' && result !== null && 'rowCount' in result && typeof result.rowCount === 'number'
    ? result.rowCount
    : undefined;
}

/**
 * Commits, with the change log's row in the same round trip when the write changed anything kept answers depend on.
 * A transaction an error aborted answers COMMIT with ROLLBACK rather than an error: work that caught a statement's
 * error and went on must not pass for committed.
 */
/** pg answers a text of several statements with one result per statement, its typings only ever with one. */
function resultsOf(answer: pg.QueryResult | pg.QueryResult[]): pg.QueryResult[] {
  return Array.isArray(answer) ? answer : [answer];
}

async function commit(
  client: pg.PoolClient,
  keys: readonly ChangeKey[],
  failures: readonly Promise<Error | undefined>[],
): Promise<string | undefined> {
  // Sent before the answers of what went ahead of it: they arrive together, in one round trip.
  const committing = client.query(keys.length === 0 ? 'COMMIT' : logAndCommit(client, keys)).then(
    (answer) => ({ answer }),
    (error: unknown) => ({ error }),
  );
  // A statement sent ahead that failed aborted the transaction: its own error says why, not the commit's.
  for (const failed of failures) {
    const failure = await failed;
    if (failure !== undefined) {
      await committing;
      throw failure;
    }
  }
  const outcome = await committing;
  if ('error' in outcome) throw outcome.error;
  const results = resultsOf(outcome.answer);
  if (results.at(-1)?.command !== 'COMMIT')
    throw new Error('the write transaction was rolled back (a statement in it had failed)');
  const row: unknown = results.length > 1 ? results[0]?.rows[0] : undefined;
  return typeof row === 'object' && row !== null && 'xid' in row && typeof row.xid === 'string' ? row.xid : undefined;
}
