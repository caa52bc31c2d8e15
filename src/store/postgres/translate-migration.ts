// The migrations are written once, in the SQL SQLite and PostgreSQL share, but for three storage words that are
// translated here for PostgreSQL. A migration that has shipped never changes, so SQLite keeps building exactly the
// schema it always built, and PostgreSQL gets the same tables with its own words for them:
// - `TEXT` columns are `TEXT COLLATE "C"`: strings compare and sort byte-wise, as upstream's bolt store does;
// - `INTEGER` columns are `BIGINT`: SQLite integers are 64-bit (the pool reads BIGINT back as numbers);
// - `WITHOUT ROWID` (a SQLite storage layout) is dropped.
// Column types are translated only in CREATE TABLE and ALTER TABLE statements, and never inside quoted literals.
// What the two cannot share is written once per database (MigrationStatement).
import type { MigrationStatement } from '../migrations/migrate.js';

const DEFINES_COLUMNS = /^\s*(CREATE\s+TABLE|ALTER\s+TABLE)\b/i;

/** A shared statement translated; one written for PostgreSQL as it is (undefined: SQLite-only, nothing to run). */
export function toPostgres(statement: string): string;
export function toPostgres(statement: MigrationStatement): string | undefined;
export function toPostgres(statement: MigrationStatement): string | undefined {
  if (typeof statement !== 'string') return statement.postgres;
  // Odd pieces are the insides of single-quoted literals ('' escapes split into two pieces and rejoin unchanged).
  const pieces = statement.split("'");
  const translated = pieces.map((piece, index) =>
    index % 2 === 1 ? piece : translateCode(piece, DEFINES_COLUMNS.test(statement)),
  );
  return translated.join("'");
}

function translateCode(code: string, definesColumns: boolean): string {
  const withoutRowid = code.replace(/\)\s*WITHOUT\s+ROWID\b/gi, ')');
  if (!definesColumns) return withoutRowid;
  return withoutRowid.replace(/\bTEXT\b/g, 'TEXT COLLATE "C"').replace(/\bINTEGER\b/g, 'BIGINT');
}
