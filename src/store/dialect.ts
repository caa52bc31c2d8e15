// What differs between the two databases for the store's query modules, in one small object per store
// (src/store/sqlite/sqlite-dialect.ts, src/store/postgres/postgres-dialect.ts); query modules never test which one
// they have.
import { sql, type RawBuilder } from 'kysely';
import type { FilterSqlDialect } from './filter/sql-dialect.js';

export type DialectName = 'sqlite' | 'postgres';

/** A column of inline rows: its name and whether its values are numbers (whole ones: `integer`). */
export interface InlineColumn {
  name: string;
  kind: 'integer' | 'real' | 'text';
}

export interface SqlDialect {
  name: DialectName;
  /** The filter compiler's pieces (substring tests, JSON values, bools). */
  filter: FilterSqlDialect;
  /** The LIMIT that means "no limit": SQLite takes -1 (and needs a LIMIT before any OFFSET), PostgreSQL NULL. */
  unlimited: number | null;
  /**
   * Rows held in memory as a table in the query (`FROM (<this>) AS t`), bound as one JSON parameter whatever their
   * number (a UNION of one SELECT per row stops at SQLite's 500 compound terms and the parameter limits). Columns
   * are typed as stored ones compare: numbers as numbers, everything else as text (PostgreSQL: COLLATE "C").
   * `rowsJson`: the rows as a JSON array's text, or a prepared shape's stand-in for it.
   */
  inlineRows(columns: readonly InlineColumn[], rowsJson: unknown): RawBuilder<unknown>;
  /**
   * A list of text values bound as one parameter, as the right side of `IN`: the statement text is the same
   * whatever the list's length, so one compiled shape serves every list.
   */
  /**
   * A statement text run on (nearly) every request (prepared.ts preparedQuery): PostgreSQL then prepares it once per
   * connection by name, so later runs skip parsing and planning; SQLite's statement cache does that for every text.
   */
  keepPrepared(text: string): void;
  /**
   * An aggregate over a query's rows: a JSON array of one object per row, `entries`' keys to their values, in
   * `orderBy`'s order, as JSON text (`[]` when there are no rows). Lets one statement answer several lists.
   */
  jsonRows(entries: Readonly<Record<string, RawBuilder<unknown>>>, orderBy: RawBuilder<unknown>): RawBuilder<string>;
  textList: {
    /** `(SELECT … FROM <the list>)` around the bound parameter. */
    sql(parameter: unknown): RawBuilder<unknown>;
    /** The list as the driver binds it. */
    bind(values: readonly string[]): unknown;
  };
}

/** `'key', value, …`: the arguments of either database's JSON object constructor (keys are the code's own names). */
export const jsonEntries = (entries: Readonly<Record<string, RawBuilder<unknown>>>): RawBuilder<unknown> =>
  sql.join(Object.entries(entries).map(([key, value]) => sql`${sql.lit(key)}, ${value}`));
