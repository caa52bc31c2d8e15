// Test support: an `items` table (SQLite in memory, or PostgreSQL: see fixtureDatabaseUrl) with a role-attribute set and tags, plus helpers to run filters.
import Database from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import type { SqlDialect } from '../dialect.js';
import { postgresDialect } from '../postgres/postgres-dialect.js';
import { pgNumberTypes } from '../postgres/postgres-store.js';
import { createScratchSchema } from '../postgres/scratch-schema.js';
import { toPostgres } from '../postgres/translate-migration.js';
import { sqliteDialect } from '../sqlite/sqlite-dialect.js';
import type { ListQuery, ListQuerySql, SymbolTable } from './filter-types.js';
import { checkListQuery, listQuerySql, type ListParams } from './list-query.js';

export interface ItemsDatabase {
  items: {
    id: string;
    name: string | null;
    cost: number | null;
    is_admin: number | null;
    created_at: string | null;
    tags: string | null;
  };
  item_role_attributes: { entity_id: string; value: string };
}

export const ITEM_SYMBOLS: SymbolTable = {
  id: { kind: 'column', type: 'string', column: 'id' },
  name: { kind: 'column', type: 'string', column: 'name' },
  cost: { kind: 'column', type: 'number', column: 'cost' },
  isAdmin: { kind: 'column', type: 'bool', column: 'is_admin' },
  createdAt: { kind: 'column', type: 'datetime', column: 'created_at' },
  roleAttributes: {
    kind: 'set',
    type: 'string',
    table: 'item_role_attributes',
    ownerColumn: 'entity_id',
    valueColumn: 'value',
  },
  tags: { kind: 'map', column: 'tags' },
};

type ItemRow = [id: string, name: string | null, cost: number | null, isAdmin: number | null, createdAt: string | null];

/** Six items chosen so that every operator has matches, non-matches and NULLs. */
const ITEMS: Array<{ row: ItemRow; tags: unknown; roles: string[] }> = [
  {
    row: ['a', 'alpha', 5, 1, '2024-01-10T10:00:00.000Z'],
    tags: { env: 'prod', n: 3, flag: true, nested: { deep: 'x' }, when: '2024-01-01T00:00:00.000Z' },
    roles: ['sales', 'eng'],
  },
  {
    row: ['b', 'Beta', 10.5, 0, '2024-02-01T00:00:00.000Z'],
    tags: { env: 'dev', n: '3', flag: false },
    roles: ['eng'],
  },
  { row: ['c', 'gamma ray', null, null, '2024-01-31T23:59:59.999Z'], tags: {}, roles: [] },
  { row: ['d', null, 0, 1, null], tags: { env: null, owner: 'bob' }, roles: ['legacy'] },
  { row: ['e', 'delta"quote', -2, 0, '2023-12-31T23:00:00.000Z'], tags: { n: 10, flag: 'true' }, roles: ['sales'] },
  { row: ['f', '5', 50, 0, '2024-03-01T12:00:00.123Z'], tags: null, roles: ['Sales', 'legacy'] },
];

export const ALL_IDS = ['a', 'b', 'c', 'd', 'e', 'f'];

export interface ItemsFixture {
  db: Kysely<ItemsDatabase>;
  dialect: SqlDialect;
  /** The SQLite connection, for query plans; undefined on PostgreSQL. */
  sqlite: Database.Database | undefined;
  close(): Promise<void>;
}

/**
 * The database the filter tests run on: PostgreSQL (a fresh schema) when `ZITI_TEST_DATABASE_URL` is set, as
 * `npm run test:postgres` sets it, else SQLite in memory. The same cases run on both, each dialect compiling them.
 */
export const fixtureDatabaseUrl = process.env.ZITI_TEST_DATABASE_URL || undefined;

/** Written once for both databases, as migrations are (PostgreSQL's column words translated the same way). */
const ITEMS_SCHEMA = [
  `CREATE TABLE items (id TEXT PRIMARY KEY, name TEXT, cost NUMERIC, is_admin INTEGER, created_at TEXT, tags TEXT)`,
  `CREATE INDEX items_name ON items(name)`,
  `CREATE TABLE item_role_attributes (entity_id TEXT NOT NULL REFERENCES items(id), value TEXT NOT NULL)`,
  `CREATE INDEX item_role_attributes_value ON item_role_attributes(value, entity_id)`,
];

export async function createItemsFixture(): Promise<ItemsFixture> {
  const opened = fixtureDatabaseUrl ? await openPostgres(fixtureDatabaseUrl) : openSqlite();
  const { db } = opened;
  for (const statement of ITEMS_SCHEMA)
    await sql.raw(opened.dialect === sqliteDialect ? statement : toPostgres(statement)).execute(db);
  for (const { row, tags, roles } of ITEMS) {
    const [id, name, cost, isAdmin, createdAt] = row;
    await db
      .insertInto('items')
      .values({
        id,
        name,
        cost,
        is_admin: isAdmin,
        created_at: createdAt,
        tags: tags === null ? null : JSON.stringify(tags),
      })
      .execute();
    for (const value of roles) await db.insertInto('item_role_attributes').values({ entity_id: id, value }).execute();
  }
  return opened;
}

function openSqlite(): ItemsFixture {
  const sqlite = new Database(':memory:');
  const db = new Kysely<ItemsDatabase>({ dialect: new SqliteDialect({ database: sqlite }) });
  return { db, dialect: sqliteDialect, sqlite, close: () => db.destroy() };
}

async function openPostgres(url: string): Promise<ItemsFixture> {
  const scratch = await createScratchSchema(url, 'ziti_filter_test');
  // NUMERIC reads as a number, as the store's pool reads it.
  const pool = new pg.Pool({ connectionString: scratch.url, max: 2, types: pgNumberTypes });
  const db = new Kysely<ItemsDatabase>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    dialect: postgresDialect,
    sqlite: undefined,
    close: async () => {
      await db.destroy();
      await scratch.drop();
    },
  };
}

/** Checks a list request and compiles it for SQLite with the listed table aliased `alias`. */
export function compileSqlite(
  params: ListParams,
  target: { alias: string; idColumn?: string; symbols: SymbolTable },
): ListQuery & ListQuerySql {
  const query = checkListQuery(params, target);
  return { ...query, ...listQuerySql(query, target.alias, sqliteDialect.filter) };
}

/** Compiles `params` for the fixture's database against the items table (alias `t`) into a runnable select of ids. */
export function selectIds(fixture: ItemsFixture, params: ListParams, symbols: SymbolTable = ITEM_SYMBOLS) {
  const target = { alias: 't', symbols };
  const checked = checkListQuery(params, target);
  const query = { ...checked, ...listQuerySql(checked, target.alias, fixture.dialect.filter) };
  let select = fixture.db.selectFrom('items as t').select('t.id').where(query.where);
  for (const order of query.orderBy) select = select.orderBy(order);
  return select.limit(query.limit === 'none' ? fixture.dialect.unlimited : query.limit).offset(query.offset);
}

/** Ids of the rows a list request returns, in result order. */
export async function listIds(fixture: ItemsFixture, params: ListParams): Promise<string[]> {
  const rows = await selectIds(fixture, params).execute();
  return rows.map((row) => row.id);
}

/** Ids of every row the filter matches (no paging), in id order. */
export function matchingIds(fixture: ItemsFixture, filter: string): Promise<string[]> {
  return listIds(fixture, { filter, limit: -1 });
}
