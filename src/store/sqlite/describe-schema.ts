// What the migrations built, read back from SQLite's catalogue: the source of the typed schema (src/store/schema.ts)
// and what the store tests compare with PostgreSQL's catalogue.
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { ColumnDescription, TableDescription } from '../describe-schema.js';
import { migrate, type Migration } from '../migrations/migrate.js';

interface ColumnInfo {
  name: string;
  type: string;
  notnull: number;
  dflt_value: string | null;
  pk: number;
}

/** Every table and view but SQLite's own, in name order, with columns in declaration order. */
export function describeSqliteSchema(database: Database.Database): TableDescription[] {
  const objects = database
    .prepare<[], { name: string; type: 'table' | 'view'; sql: string }>(
      `SELECT name, type, sql FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' ORDER BY name`,
    )
    .all();
  const columnsOf = (table: string) =>
    database.prepare<[string], ColumnInfo>(`SELECT * FROM pragma_table_info(?)`).all(table);
  return objects.map(({ name, type, sql }) => {
    // A view's columns carry no constraints of their own: each is as nullable as the column of the one table it
    // selects from (the views here are filtered projections of one table).
    const base = type === 'view' ? columnsOf(/\bFROM\s+(\w+)/i.exec(sql)?.[1] ?? '') : [];
    const columns = columnsOf(name).map((column): ColumnDescription => {
      const source = type === 'view' ? (base.find((candidate) => candidate.name === column.name) ?? column) : column;
      return {
        name: column.name,
        type: column.type.toUpperCase() === 'INTEGER' ? 'integer' : 'text',
        isNullable: source.notnull === 0 && source.pk === 0,
        hasDefault: source.dflt_value !== null,
      };
    });
    return { name, isView: type === 'view', columns };
  });
}

/** The tables and views the migrations build together, read from a fresh in-memory SQLite database. */
export async function migratedSqliteSchema(migrations: readonly Migration[]): Promise<TableDescription[]> {
  const database = new Database(':memory:');
  const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database }) });
  try {
    await migrate(db, migrations);
    return describeSqliteSchema(database);
  } finally {
    await db.destroy();
  }
}
