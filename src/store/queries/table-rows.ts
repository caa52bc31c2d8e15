// Rows of any table by name, matched by equality only: for code that works across tables the same way (the
// integrity scan walks and repairs every derived table alike) and for tests that seed or inspect the database.
import { sql, type Insertable, type RawBuilder, type Selectable, type SqlBool, type Updateable } from 'kysely';
import { dynamic } from '../connection.js';
import type { Database } from '../schema.js';
import type { Db, TableName } from '../store.js';

export type Row = Record<string, unknown>;

/** A row as stored, and as written (columns with defaults may be left out), of a table the schema knows. */
export type StoredRow<T extends TableName> = Selectable<Database[T]>;
export type NewRow<T extends TableName> = Insertable<Database[T]>;

/** Which rows: every named column equals its value (IS NULL for null), or is one of a list of values. */
export type Match<T extends TableName> = {
  readonly [C in keyof Selectable<Database[T]>]?: Selectable<Database[T]>[C] | readonly Selectable<Database[T]>[C][];
};

/** Further conditions a walk over a table takes: rows where the `flag` column is 1, or the `present` column is set. */
export interface RowFilter {
  flag?: string;
  present?: string;
}

/** Ids (after, upTo]; either end may be open. */
export interface IdRange {
  after: string | undefined;
  upTo: string | undefined;
}

const noRow = sql<SqlBool>`1 = 0`;
const everyRow = sql<SqlBool>`1 = 1`;

/** The condition of a match (see Match); written as SQL since the tables are named at run time. */
function matching(match: Readonly<Record<string, unknown>>): RawBuilder<SqlBool> {
  const conditions = Object.entries(match).flatMap(([column, value]) => {
    if (value === undefined) return [];
    if (Array.isArray(value))
      return [value.length > 0 ? sql<SqlBool>`${sql.ref(column)} IN (${sql.join(value)})` : noRow];
    return [value === null ? sql<SqlBool>`${sql.ref(column)} IS NULL` : sql<SqlBool>`${sql.ref(column)} = ${value}`];
  });
  return conditions.length === 0 ? everyRow : sql<SqlBool>`${sql.join(conditions, sql` AND `)}`;
}

function filtered(filter: RowFilter = {}): RawBuilder<SqlBool> {
  const conditions = [
    ...(filter.flag ? [sql<SqlBool>`${sql.ref(filter.flag)} = 1`] : []),
    ...(filter.present ? [sql<SqlBool>`${sql.ref(filter.present)} IS NOT NULL`] : []),
  ];
  return conditions.length === 0 ? everyRow : sql<SqlBool>`${sql.join(conditions, sql` AND `)}`;
}

/** The rows matching (every column, or `columns` only). Tables named at run time; see selectRows for typed use. */
export async function selectMatching(
  db: Db,
  table: TableName,
  match: Readonly<Row>,
  columns?: readonly string[],
): Promise<Row[]> {
  const from = dynamic(db).selectFrom(table);
  return (columns ? from.select([...columns]) : from.selectAll()).where(matching(match)).execute();
}

/** Returns how many rows changed. */
export async function updateMatching(
  tx: Db,
  table: TableName,
  values: Readonly<Row>,
  match: Readonly<Row>,
): Promise<number> {
  const result = await dynamic(tx)
    .updateTable(table)
    .set({ ...values })
    .where(matching(match))
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Returns how many rows went. */
export async function deleteMatching(tx: Db, table: TableName, match: Readonly<Row>): Promise<number> {
  const result = await dynamic(tx).deleteFrom(table).where(matching(match)).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function insertRow(tx: Db, table: TableName, row: Readonly<Row>): Promise<void> {
  await dynamic(tx)
    .insertInto(table)
    .values({ ...row })
    .execute();
}

/** Rows of a table named at run time in one statement (callers keep a batch well below the parameter limits). */
export async function insertManyRows(tx: Db, table: TableName, rows: readonly Readonly<Row>[]): Promise<void> {
  if (rows.length > 0)
    await dynamic(tx)
      .insertInto(table)
      .values(rows.map((row) => ({ ...row })))
      .execute();
}

export async function selectRows<T extends TableName>(
  db: Db,
  table: T,
  match: Match<T> = {},
): Promise<Selectable<Database[T]>[]> {
  // The table is named at run time, so the builder cannot type its rows; the schema says what `T`'s are.
  return (await selectMatching(db, table, match)) as Selectable<Database[T]>[];
}

export async function insertRows<T extends TableName>(
  tx: Db,
  table: T,
  rows: readonly Insertable<Database[T]>[],
): Promise<void> {
  if (rows.length > 0)
    await dynamic(tx)
      .insertInto(table)
      .values([...rows])
      .execute();
}

export function updateRows<T extends TableName>(
  tx: Db,
  table: T,
  values: Updateable<Database[T]>,
  match: Match<T>,
): Promise<number> {
  return updateMatching(tx, table, values, match);
}

export function deleteRows<T extends TableName>(tx: Db, table: T, match: Match<T>): Promise<number> {
  return deleteMatching(tx, table, match);
}

/** Up to `limit` rows with ids after `after`, in id order: `id` and `columns`. */
export async function rowsAfter(
  db: Db,
  table: TableName,
  columns: readonly string[],
  after: string | undefined,
  limit: number,
  filter?: RowFilter,
): Promise<Row[]> {
  let query = dynamic(db)
    .selectFrom(table)
    .select(['id', ...columns])
    .where(filtered(filter));
  if (after !== undefined) query = query.where('id', '>', after);
  return await query.orderBy('id').limit(limit).execute();
}

/** The rows whose `keyColumn` lies in `range`: `columns` only. */
export async function rowsInRange(
  db: Db,
  table: TableName,
  columns: readonly string[],
  keyColumn: string,
  range: IdRange,
  filter?: RowFilter,
): Promise<Row[]> {
  let query = dynamic(db)
    .selectFrom(table)
    .select([...columns])
    .where(filtered(filter));
  if (range.after !== undefined) query = query.where(keyColumn, '>', range.after);
  if (range.upTo !== undefined) query = query.where(keyColumn, '<=', range.upTo);
  return await query.execute();
}

export async function countRows(db: Db, table: TableName): Promise<number> {
  const row = await dynamic(db)
    .selectFrom(table)
    .select(sql<number>`count(*)`.as('n'))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
