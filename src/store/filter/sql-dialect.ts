// The few SQL pieces of filter compilation that differ between SQLite and PostgreSQL; each store's dialect object
// (src/store/sqlite/sqlite-dialect.ts, src/store/postgres/postgres-dialect.ts) implements them.
import type { RawBuilder, SqlBool } from 'kysely';
import type { MapValueKind } from './filter-types.js';

/**
 * Storage conventions the filter compiles for: strings TEXT compared byte-wise, numbers INTEGER/REAL, bools
 * INTEGER 0/1, datetimes TEXT `YYYY-MM-DDTHH:mm:ss.sssZ` (UTC), absent values NULL, tags a JSON object column.
 */
export interface FilterSqlDialect {
  /** True when `needle` occurs in `haystack`, case-sensitively; NULL when `haystack` is NULL. */
  containsText(haystack: RawBuilder<unknown>, needle: RawBuilder<unknown>): RawBuilder<SqlBool>;
  /** As containsText, ignoring the case of ASCII letters on both sides (as upstream's filters do). */
  containsTextIgnoringCase(haystack: RawBuilder<unknown>, needle: RawBuilder<unknown>): RawBuilder<SqlBool>;
  /** A number as text, for substring tests on numeric values. */
  asText(value: RawBuilder<unknown>): RawBuilder<unknown>;
  /**
   * The value at `keys` inside a JSON object column, read as `as`: values of another JSON type read as NULL,
   * bools read as 1/0, and 'any' returns the raw value (NULL when missing or JSON null).
   */
  mapValue(column: RawBuilder<unknown>, keys: readonly string[], as: MapValueKind): RawBuilder<unknown>;
  /** A number literal, compared with numbers however they are stored (PostgreSQL refuses 5.5 as a BIGINT). */
  number(value: number): RawBuilder<unknown>;
  /** True when a stored bool value is true; NULL when it is NULL. */
  isTrue(value: RawBuilder<unknown>): RawBuilder<SqlBool>;
}
