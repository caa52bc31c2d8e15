// Query shapes built and compiled once per store, then run with new parameters. For the small reads every request
// makes, building a query with the query builder and compiling it cost more than running it: a shape is built
// once with stand-ins for its arguments, compiled, and each run only swaps the arguments into the compiled
// statement's parameters (whose text the SQLite store's statement cache then finds prepared).
import { sql, type Compilable, type CompiledQuery, type Kysely, type QueryResult, type RawBuilder } from 'kysely';
import { LruMap } from '../lib/lru-map.js';
import { dialectOf, sendAhead, typed } from './connection.js';
import type { Database } from './schema.js';
import type { Db } from './store.js';

/** Stands for an argument while a shape is built; each run binds the argument's value in its place. */
class Argument {
  constructor(
    readonly index: number,
    readonly bind: (value: unknown) => unknown = (value) => value,
  ) {}
}

/** A compiled shape and, per parameter, the argument it takes or undefined for a constant. */
interface Shape {
  compiled: CompiledQuery;
  slots: (Argument | undefined)[];
}

/** What a shape's builder returns: a query builder's query, or a raw SQL template. */
type Buildable<R> = Compilable<R> | RawBuilder<R>;

function compileShape(db: Kysely<Database>, query: Buildable<unknown>): Shape {
  const compiled = isRawBuilder(query) ? query.compile(db) : query.compile();
  return {
    compiled,
    slots: compiled.parameters.map((parameter) => (parameter instanceof Argument ? parameter : undefined)),
  };
}

/** The shape's statement with the call's arguments in their slots. */
function boundShape<R>(shape: Shape, args: readonly unknown[]): CompiledQuery<R> {
  const parameters = shape.compiled.parameters.map((constant, index) => {
    const slot = shape.slots[index];
    return slot ? slot.bind(args[slot.index]) : constant;
  });
  return { ...shape.compiled, parameters };
}

function executeShape<R>(db: Db, shape: Shape, args: readonly unknown[]): Promise<QueryResult<R>> {
  return typed(db).executeQuery<R>(boundShape<R>(shape, args));
}

async function runShape<R>(db: Db, shape: Shape, args: readonly unknown[]): Promise<R[]> {
  return (await executeShape<R>(db, shape, args)).rows;
}

const isRawBuilder = (query: Buildable<unknown>): query is RawBuilder<unknown> => 'isRawBuilder' in query;

/** The stand-ins a shape is built with, typed as the arguments they stand for. */
function standIns<A extends readonly unknown[]>(count: number): A {
  // The builder only places its arguments (preparedQuery), so stand-ins of another type are never looked into.
  return Array.from({ length: count }, (_, index) => new Argument(index)) as readonly unknown[] as A;
}

/** A store's adapter: the same for the store's handle and every transaction and connection made from it. */
const storeOf = (db: Db): object => typed(db).getExecutor().adapter;

/**
 * A query of one fixed shape: `build` places its arguments (it must not look at them: while the shape is built they
 * are stand-ins) and runs once per store; every call runs the compiled statement with the call's arguments.
 */
export function preparedQuery<A extends unknown[], R>(
  build: (db: Kysely<Database>, ...args: A) => Buildable<R>,
): (db: Db, ...args: A) => Promise<R[]> {
  const shapes = new WeakMap<object, Shape>();
  return (db, ...args) => {
    let shape = shapes.get(storeOf(db));
    if (!shape) {
      shape = compileShape(typed(db), build(typed(db), ...standIns<A>(args.length)));
      dialectOf(db).keepPrepared(shape.compiled.sql);
      shapes.set(storeOf(db), shape);
    }
    return runShape<R>(db, shape, args);
  };
}

/**
 * Queries whose shape depends on more than their arguments (a list's table, filter and scope): each shape is
 * compiled once under its key, per store, and the least recently used are forgotten past `capacity`.
 */
export class ShapeCache {
  readonly #stores = new WeakMap<object, LruMap<string, Shape>>();

  /** `keepPrepared`: for shapes few and run often (an entity's insert), which PostgreSQL then prepares by name. */
  constructor(
    private readonly capacity: number,
    private readonly keepPrepared = false,
  ) {}

  run<R>(
    db: Db,
    key: string,
    args: readonly unknown[],
    build: (db: Kysely<Database>, args: readonly unknown[]) => Buildable<R>,
  ): Promise<R[]> {
    return runShape<R>(db, this.#shape(db, key, args.length, build), args);
  }

  /** As `run`, for a write whose answer the work need not wait for (connection.ts sendAhead). */
  ahead<R>(
    db: Db,
    key: string,
    args: readonly unknown[],
    build: (db: Kysely<Database>, args: readonly unknown[]) => Buildable<R>,
  ): Promise<{ answer: Promise<R[]> }> {
    return sendAhead(db, boundShape<R>(this.#shape(db, key, args.length, build), args));
  }

  /** As `run`, with the whole result: a write's `numAffectedRows`. */
  execute(
    db: Db,
    key: string,
    args: readonly unknown[],
    build: (db: Kysely<Database>, args: readonly unknown[]) => Buildable<unknown>,
  ): Promise<QueryResult<unknown>> {
    return executeShape(db, this.#shape(db, key, args.length, build), args);
  }

  #shape(
    db: Db,
    key: string,
    argCount: number,
    build: (db: Kysely<Database>, args: readonly unknown[]) => Buildable<unknown>,
  ): Shape {
    let shapes = this.#stores.get(storeOf(db));
    if (!shapes) {
      shapes = new LruMap(this.capacity);
      this.#stores.set(storeOf(db), shapes);
    }
    let shape = shapes.get(key);
    if (!shape) {
      shape = compileShape(typed(db), build(typed(db), standIns(argCount)));
      if (this.keepPrepared) dialectOf(db).keepPrepared(shape.compiled.sql);
      shapes.set(key, shape);
    }
    return shape;
  }
}

/**
 * `(SELECT … FROM <list>)`, the right side of `IN`, for a list of text values bound as one parameter: inside a
 * prepared shape the list is an argument (bound in the dialect's form at each run), elsewhere the values themselves.
 */
export function inTextList(db: Db, values: readonly string[]): RawBuilder<string> {
  const { textList } = dialectOf(db);
  // At a run the argument is the caller's `values`, typed by the shape's signature.
  const bind = (list: unknown) => textList.bind(list as readonly string[]);
  // The dialect's list is a subquery of one text column.
  return textList.sql(
    values instanceof Argument ? new Argument(values.index, bind) : bind(values),
  ) as RawBuilder<string>;
}

/**
 * A LIMIT bound as a parameter, as an expression: SQLite (built with STAT4) prepares a statement whose LIMIT is a
 * bare parameter again on every run, which doubled a one-row page's cost; an expression is planned once.
 */
export function limitOf(value: unknown): RawBuilder<number> {
  return sql<number>`CAST(${value} AS INTEGER)`;
}
