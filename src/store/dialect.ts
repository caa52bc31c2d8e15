// What differs between the two databases for the store's query modules, in one small object per store
// (src/store/sqlite/sqlite-dialect.ts, src/store/postgres/postgres-dialect.ts); query modules never test which one
// they have.
import type { RawBuilder } from 'kysely';
import type { FilterSqlDialect } from './filter/sql-dialect.js';

export type DialectName = 'sqlite' | 'postgres';

export interface SqlDialect {
  name: DialectName;
  /** The filter compiler's pieces (substring tests, JSON values, bools). */
  filter: FilterSqlDialect;
  /** The LIMIT that means "no limit": SQLite takes -1 (and needs a LIMIT before any OFFSET), PostgreSQL NULL. */
  unlimited: number | null;
  /**
   * A bound value as a column of a table of rows made in the query (`SELECT ? AS x`): SQLite types it by value;
   * PostgreSQL leaves a bare parameter untyped (text), so it is cast as the stored column would be.
   */
  rowValue(value: unknown): RawBuilder<unknown>;
}
