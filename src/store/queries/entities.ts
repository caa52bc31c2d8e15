// The generic entity queries the kit (src/crud/) runs for every definition: one row by id, a page of a filtered and
// sorted list, writes of the row with its set side tables, and the distinct values of a set field.
import { sql, type Kysely } from 'kysely';
import { dialectOf, dynamic } from '../connection.js';
import type { ListQuery } from '../filter/filter-types.js';
import { listQuerySql } from '../filter/list-query.js';
import type { Database } from '../schema.js';
import type { Db, TableName } from '../store.js';
import type { InlineColumn } from '../dialect.js';
import { limitOf, ShapeCache } from '../prepared.js';
import { everyRow, LISTED, scopeKey, scopeSql, scopeValues, type Scope } from './scopes.js';

/** A stored row, column name → value, as the kit maps it to and from entity values. */
export type Row = Record<string, unknown>;

/** A row the kit writes: every entity row has its id. */
export type EntityRow = Row & { id: string };

/** The elements of one set field, written to its side table (one row per element) beside the row's JSON column. */
export interface SetRows {
  table: TableName;
  values: readonly string[];
}

/** Shapes of list pages and counts, and of the other queries whose shape depends on a table: by key, per store. */
const shapes = new ShapeCache(2_000);
/** Inserts: one shape per table and set of columns, kept prepared (a session create inserts on every request). */
const insertShapes = new ShapeCache(200, true);

/** One row by id; with a `scope`, only if the row is in it too (the caller's own), as one query per scope shape. */
export async function findRow(db: Db, table: TableName, id: string, scope: Scope = everyRow): Promise<Row | undefined> {
  if (scope !== everyRow) {
    const values = scopeValues(scope);
    const [row] = await shapes.run<Row>(
      db,
      `find ${table} ${scopeKey(scope)}`,
      [id, ...values],
      (q, [bound, ...scoped]) =>
        dynamic(q)
          .selectFrom(`${table} as ${LISTED}`)
          .selectAll(LISTED)
          .where(`${LISTED}.id`, '=', bound)
          .where(scopeSql(scope, db, scoped)),
    );
    return row;
  }
  const [row] = await shapes.run<Row>(db, `find ${table}`, [id], (q, [bound]) =>
    dynamic(q).selectFrom(table).selectAll().where('id', '=', bound),
  );
  return row;
}

/** Inserts the row and its sets; `returning`: answers the row as stored (defaults applied) in the same statement. */
export async function insertRow(
  tx: Db,
  table: TableName,
  row: EntityRow,
  sets: readonly SetRows[] = [],
  returning = false,
): Promise<Row | undefined> {
  // Undefined columns are left out (their default applies), as the query builder does.
  const entries = Object.entries(row).filter(([, value]) => value !== undefined);
  const columns = entries.map(([column]) => column);
  const [stored] = await insertShapes.run<Row>(
    tx,
    `insert ${table} ${columns.join()}${returning ? ' returning' : ''}`,
    entries.map(([, value]) => value),
    (q, values) => {
      const insert = dynamic(q)
        .insertInto(table)
        .values(Object.fromEntries(columns.map((column, index) => [column, values[index]])));
      return returning ? insert.returningAll() : insert;
    },
  );
  await writeSets(tx, row.id, sets, false);
  return stored;
}

/** Replaces every column but `id` and `created_at`, and every listed set. */
export async function updateRow(
  tx: Db,
  table: TableName,
  row: EntityRow,
  sets: readonly SetRows[] = [],
): Promise<void> {
  const { id, created_at: _created, ...columns } = row;
  await dynamic(tx).updateTable(table).set(columns).where('id', '=', id).execute();
  await writeSets(tx, id, sets, true);
}

/** Set side tables and other owned rows go with the row (ON DELETE CASCADE). */
export async function deleteRow(tx: Db, table: TableName, id: string): Promise<void> {
  await dynamic(tx).deleteFrom(table).where('id', '=', id).execute();
}

async function writeSets(tx: Db, ownerId: string, sets: readonly SetRows[], replace: boolean): Promise<void> {
  for (const set of sets) {
    if (replace) await dynamic(tx).deleteFrom(set.table).where('entity_id', '=', ownerId).execute();
    if (set.values.length > 0) {
      await dynamic(tx)
        .insertInto(set.table)
        .values(set.values.map((value) => ({ entity_id: ownerId, value })))
        .execute();
    }
  }
}

/** Whether a row other than `exceptId` holds `value` in `column`. */
export async function isValueTaken(
  db: Db,
  table: TableName,
  column: string,
  value: unknown,
  exceptId: string,
): Promise<boolean> {
  return (
    (await dynamic(db)
      .selectFrom(table)
      .select('id')
      .where(column, '=', value)
      .where('id', '!=', exceptId)
      .executeTakeFirst()) !== undefined
  );
}

export interface RowPage {
  rows: Row[];
  totalCount: number;
}

/**
 * One page of a list; `scope` narrows it beyond the filter (a parent's children, the caller's own rows). Page and
 * count compile once per table, filter, sort and scope shape; the scope's values and the page are the parameters.
 */
export async function listRows(db: Db, table: TableName, query: ListQuery, scope: Scope = everyRow): Promise<RowPage> {
  const limit = query.limit === 'none' ? dialectOf(db).unlimited : query.limit;
  const values = scopeValues(scope);
  const key = `${table} ${scopeKey(scope)} ${query.shape}`;
  const matching = (q: Kysely<Database>, bound: readonly unknown[]) => {
    const { where } = listQuerySql(query, LISTED, dialectOf(db).filter);
    return dynamic(q)
      .selectFrom(`${table} as ${LISTED}`)
      .where(where)
      .where(scopeSql(scope, db, bound.slice(0, values.length)));
  };
  const rows = await shapes.run<Row>(db, `page ${key}`, [...values, limit, query.offset], (q, bound) => {
    const { indexPage } = listQuerySql(query, LISTED, dialectOf(db).filter);
    const [pageLimit, offset] = [limitOf(bound[values.length]), bound[values.length + 1]];
    if (indexPage && scope === everyRow) return indexPage(table, pageLimit, offset);
    let select = matching(q, bound).selectAll(LISTED);
    for (const order of listQuerySql(query, LISTED, dialectOf(db).filter).orderBy) select = select.orderBy(order);
    // A prepared shape's stand-in for the offset, or the offset itself: either is what `offset` binds.
    return select.limit(pageLimit).offset(offset as number);
  });
  // A page that is not full ends the matches, so it tells the count exactly (most filtered lists: one row by name).
  const isFull = query.limit !== 'none' && rows.length >= query.limit;
  if (!isFull && (rows.length > 0 || query.offset === 0)) return { rows, totalCount: query.offset + rows.length };
  const [counted] = await shapes.run<{ n: number }>(db, `count ${key}`, values, (q, bound) => {
    const { indexCount } = listQuerySql(query, LISTED, dialectOf(db).filter);
    // With no scope, a set test's matches are counted in the set's index (filter/compile-filter.ts).
    return indexCount && scope === everyRow ? indexCount : matching(q, bound).select(sql<number>`count(*)`.as('n'));
  });
  return { rows, totalCount: Number(counted?.n ?? 0) };
}

/**
 * The distinct values of a set field across all entities, sorted (every identity role attribute in use);
 * `query` filters them by the symbol `id` (the value), and pages them only when `isPaged`.
 */
export async function listSetValues(
  db: Db,
  setTable: TableName,
  query?: ListQuery,
  isPaged = false,
): Promise<string[]> {
  if (!query) {
    const rows = await dynamic(db).selectFrom(setTable).select('value').distinct().orderBy('value').execute();
    return rows.map((row) => String(row.value));
  }
  const dialect = dialectOf(db);
  const { where } = listQuerySql(query, LISTED, dialect.filter);
  const rows = await dynamic(db)
    .selectFrom(sql`(SELECT DISTINCT value FROM ${sql.table(setTable)})`.as(LISTED))
    .select(`${LISTED}.value`)
    .where(where)
    .orderBy(`${LISTED}.value`)
    .limit(isPaged && query.limit !== 'none' ? query.limit : dialect.unlimited)
    .offset(query.offset)
    .execute();
  return rows.map((row) => String(row.value));
}

/**
 * A page of rows the caller holds in memory (this controller as `GET /controllers` lists it), filtered, sorted and
 * paged by the database exactly as stored rows are. Every row has the same columns. As a list of stored rows: a
 * shape per columns and list query, the rows (as one JSON parameter) and the page its arguments, and a page that is
 * not full tells the count.
 */
export async function listInlineRows(db: Db, rows: readonly Row[], query: ListQuery): Promise<RowPage> {
  const [first] = rows;
  if (!first) return { rows: [], totalCount: 0 };
  const dialect = dialectOf(db);
  const columns = Object.keys(first).map((name): InlineColumn => {
    const numbers = rows.map((row) => row[name]).filter((value) => typeof value === 'number');
    return { name, kind: numbers.length === 0 ? 'text' : numbers.every(Number.isInteger) ? 'integer' : 'real' };
  });
  const key = `inline ${columns.map(({ name, kind }) => `${name}:${kind}`).join()} ${query.shape}`;
  const json = JSON.stringify(rows);
  const matching = (q: Kysely<Database>, rowsJson: unknown) =>
    dynamic(q)
      .selectFrom(sql`(${dialect.inlineRows(columns, rowsJson)})`.as(LISTED))
      .where(listQuerySql(query, LISTED, dialect.filter).where);
  const limit = query.limit === 'none' ? dialect.unlimited : query.limit;
  const found = await shapes.run<Row>(
    db,
    `page ${key}`,
    [json, limit, query.offset],
    (q, [rowsJson, pageLimit, offset]) => {
      let select = matching(q, rowsJson).selectAll(LISTED);
      for (const order of listQuerySql(query, LISTED, dialect.filter).orderBy) select = select.orderBy(order);
      return select.limit(limitOf(pageLimit)).offset(offset as number);
    },
  );
  const isFull = query.limit !== 'none' && found.length >= query.limit;
  if (!isFull && (found.length > 0 || query.offset === 0))
    return { rows: found, totalCount: query.offset + found.length };
  const [counted] = await shapes.run<{ n: number }>(db, `count ${key}`, [json], (q, [rowsJson]) =>
    matching(q, rowsJson).select(sql<number>`count(*)`.as('n')),
  );
  return { rows: found, totalCount: Number(counted?.n ?? 0) };
}
