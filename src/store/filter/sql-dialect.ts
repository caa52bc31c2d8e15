// The few SQL pieces of filter compilation that differ between SQLite and PostgreSQL.
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { MapValueKind } from './check-filter.js';

/**
 * Storage conventions the filter compiles for: strings TEXT compared byte-wise, numbers INTEGER/REAL, bools
 * INTEGER 0/1, datetimes TEXT `YYYY-MM-DDTHH:mm:ss.sssZ` (UTC), absent values NULL, tags a JSON object column.
 * A PostgreSQL variant implements the same interface (strpos, jsonb operators, COLLATE "C" for byte order).
 */
export interface FilterSqlDialect {
  /** True when `needle` occurs in `haystack`, case-sensitively; NULL when `haystack` is NULL. */
  containsText(haystack: RawBuilder<unknown>, needle: RawBuilder<unknown>): RawBuilder<SqlBool>;
  /** As containsText, ignoring case on both sides. */
  containsTextIgnoringCase(haystack: RawBuilder<unknown>, needle: RawBuilder<unknown>): RawBuilder<SqlBool>;
  /** A number as text, for substring tests on numeric values. */
  asText(value: RawBuilder<unknown>): RawBuilder<unknown>;
  /**
   * The value at `keys` inside a JSON object column, read as `as`: values of another JSON type read as NULL,
   * bools read as 1/0, and 'any' returns the raw value (NULL when missing or JSON null).
   */
  mapValue(column: RawBuilder<unknown>, keys: readonly string[], as: MapValueKind): RawBuilder<unknown>;
  /** True when a stored bool value is true; NULL when it is NULL. */
  isTrue(value: RawBuilder<unknown>): RawBuilder<SqlBool>;
}

/** `$."a"."b"`: every key quoted, so keys are never read as path syntax. */
function sqliteJsonPath(keys: readonly string[]): string {
  return '$' + keys.map((key) => `."${key.replace(/["\\]/g, (char) => `\\${char}`)}"`).join('');
}

const SQLITE_JSON_TYPES: Readonly<Record<Exclude<MapValueKind, 'any' | 'bool'>, string[]>> = {
  string: ['text'],
  number: ['integer', 'real'],
};

export const sqliteFilterDialect: FilterSqlDialect = {
  containsText: (haystack, needle) => sql<SqlBool>`instr(${haystack}, ${needle}) > 0`,
  // SQLite's lower() folds ASCII letters only; both sides are folded the same way.
  containsTextIgnoringCase: (haystack, needle) => sql<SqlBool>`instr(lower(${haystack}), lower(${needle})) > 0`,
  asText: (value) => sql`CAST(${value} AS TEXT)`,
  mapValue(column, keys, as) {
    // The path is bound as a parameter like any other value.
    const path = sql.val(sqliteJsonPath(keys));
    if (as === 'any') return sql`json_extract(${column}, ${path})`;
    if (as === 'bool') return sql`(CASE json_type(${column}, ${path}) WHEN 'true' THEN 1 WHEN 'false' THEN 0 END)`;
    const types = sql.join(SQLITE_JSON_TYPES[as].map((type) => sql.lit(type)));
    return sql`(CASE WHEN json_type(${column}, ${path}) IN (${types}) THEN json_extract(${column}, ${path}) END)`;
  },
  isTrue: (value) => sql<SqlBool>`${value} = 1`,
};
