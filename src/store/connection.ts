// Inside the store only: the query builder and dialect behind a `Db` handle. Query modules reach SQL through
// these; domain code holds `Db` values and passes them on without looking inside.
import type { CompiledQuery, DialectAdapter, Kysely } from 'kysely';
import type { SqlDialect } from './dialect.js';
import type { Database } from './schema.js';
import type { Db } from './store.js';

/**
 * Each store's Kysely instance shares one adapter with every transaction and connection made from it, so the
 * adapter identifies the store's dialect wherever a handle goes.
 */
const dialects = new WeakMap<DialectAdapter, SqlDialect>();

/** Called once by a store when it opens: every handle it hands out then knows its dialect. */
export function registerDialect(db: Kysely<Database>, dialect: SqlDialect): void {
  dialects.set(db.getExecutor().adapter, dialect);
}

export function dialectOf(db: Db): SqlDialect {
  const dialect = dialects.get(typed(db).getExecutor().adapter);
  if (!dialect) throw new Error('a database handle from no store');
  return dialect;
}

/** The handle as a query builder typed by the stored schema. */
export function typed(db: Db): Kysely<Database> {
  // eslint-disable-next-line @typescript-eslint/no-unsafe-return -- TODO(issue 14): a cast once Db is opaque
  return db;
}

/**
 * The handle for tables named at run time (entity definitions, derived tables): the schema type cannot follow a
 * table name held in a variable, so these queries are untyped and their callers give rows their types.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- table names chosen at run time; see above
export function dynamic(db: Db): Kysely<any> {
  return db;
}

/**
 * Whether a text can be in a stored row: PostgreSQL text cannot hold U+0000, so a lookup by a value that has one (a
 * router's or client's token) would fail there rather than find nothing, as it does on SQLite. Lookups skip them.
 */
export function isStorableText(value: string): boolean {
  return !value.includes('\u0000');
}

/** pg's answer to one statement, as much of it as sendAhead reads. */
interface SentAnswer {
  rows: unknown[];
}

/**
 * The write transactions that can send a statement without waiting for its answer (PostgreSQL's, pipelined): the
 * statement is on its way when the call returns, ahead of everything the transaction sends later, and its failure
 * fails the commit.
 */
export const aheadSenders = new WeakMap<object, (statement: CompiledQuery) => Promise<SentAnswer>>();

/**
 * Runs a write whose answer the work does not need before it commits (a record of the change it makes): inside a
 * PostgreSQL write transaction it is sent and the work goes on at once, its answer arriving with the commit's;
 * elsewhere it runs before this resolves. `answer` holds its rows either way; a failure fails the transaction.
 */
export async function sendAhead<R>(db: Db, statement: CompiledQuery<R>): Promise<{ answer: Promise<R[]> }> {
  const send = aheadSenders.get(db);
  if (!send) {
    const { rows } = await typed(db).executeQuery(statement);
    return { answer: Promise.resolve(rows) };
  }
  // The rows are the statement's own, typed by the query that compiled it (R).
  const answer = send(statement).then(({ rows }) => rows as R[]);
  // Its failure is the transaction's to report (at COMMIT); nobody need wait for this promise.
  answer.catch(() => undefined);
  return { answer };
}
