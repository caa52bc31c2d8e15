// The PostgreSQL store: a pg connection pool behind the same Store interface as SQLite, for operators who run
// the controller on a database they already keep (design part 0).
import pg from 'pg';
import { Kysely, PostgresDialect, sql } from 'kysely';
import { ApiError } from '../../errors/api-error.js';
import { registerDialect } from '../connection.js';
import { migrate, type Migration } from '../migrations/migrate.js';
import type { Database as Schema } from '../schema.js';
import { StoreError, type Db, type Store } from '../store.js';
import { LongValueListsPlugin } from './long-value-lists.js';
import { postgresDialect } from './postgres-dialect.js';
import { toPostgres } from './translate-migration.js';
import { writeTransactions } from './write-transactions.js';

export interface PostgresStoreOptions {
  /** `postgres://user:password@host:port/database` (libpq's parameters, e.g. `?sslmode=require`, `options=-c search_path=s`). */
  url: string;
  migrations: readonly Migration[];
  /** Connections at most (default 10). */
  poolSize?: number;
}

/**
 * The advisory lock controllers take while they migrate (with the schema's name as its second key, so controllers
 * on other schemas of the same database do not wait for each other): instances starting together migrate once.
 */
const MIGRATION_LOCK = 0x5a495449; // "ZITI"

/** BIGINT (int8) and NUMERIC, which pg reads as strings, read as numbers, as SQLite's driver reads its integers. */
const NUMBER_TYPES: ReadonlySet<number> = new Set([20, 1700]);

export const pgNumberTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary'): unknown =>
    NUMBER_TYPES.has(oid) ? Number : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

export async function openPostgresStore({ url, migrations, poolSize = 10 }: PostgresStoreOptions): Promise<Store> {
  await migrateUnderLock(url, migrations);
  const pool = new pg.Pool({ connectionString: url, max: poolSize, types: pgNumberTypes });
  // An idle connection the server closed must not take the process down; the next query opens another.
  pool.on('error', () => undefined);
  // The policy engine's delta (policy-links.ts) lives in a temporary table of each connection, emptied at every
  // commit, which shadows the schema's table of the same name (pg_temp comes first in every search path): one
  // transaction's scratch rows are never another's, and they cost no WAL. Queued before the connection's first query.
  // Should it fail, the schema's table still serves, correct as the policy engine's writes are strict (run alone).
  pool.on('connect', (client) => void client.query(SCRATCH_DELTA_TABLE).catch(() => undefined));
  const db = new Kysely<Schema>({ dialect: new PostgresDialect({ pool }), plugins: [new LongValueListsPlugin()] });
  registerDialect(db, postgresDialect);

  const writer = writeTransactions(pool, await currentSchema(db), db, [new LongValueListsPlugin()]);
  let generation = 0;
  let seen = await readClusterGeneration(db);
  // Strict writes run one at a time in this process (a waiting one holds no pooled connection); area writes run at
  // once up to a bound that leaves connections to the reads (a write's work may read beside its transaction).
  let strictWrites: Promise<unknown> = Promise.resolve();
  const areaWrites = limiter(Math.max(1, poolSize - 3));
  return {
    get generation() {
      return generation;
    },
    refresh: async () => {
      const now = await readClusterGeneration(db);
      if (now !== seen) {
        seen = now;
        generation++;
      }
    },
    transaction: async (work, options) => {
      const write = () => translateErrors(() => writer.run(work, options));
      let done: ReturnType<typeof write>;
      if (options?.touches === undefined) {
        done = strictWrites.then(write);
        strictWrites = done.catch(() => undefined);
      } else done = areaWrites(write);
      const { result, committed } = await done;
      // Only a committed generation is one this instance has seen (after a rollback another instance may commit the
      // very same number). Writes commit concurrently, so the highest one counts: every lower number committed first.
      if (committed !== undefined) {
        seen = Math.max(seen, committed);
        generation++;
      }
      return result;
    },
    read: (work) => translateErrors(() => work(db as Db)),
    // One connection in one REPEATABLE READ transaction sees the data as of its first query, writers unhindered.
    readSnapshot: (work) =>
      translateErrors(() => db.transaction().setIsolationLevel('repeatable read').setAccessMode('read only').execute((tx) => work(tx as Db))),
    backup: undefined,
    translateError: toStoreError,
    close: () => db.destroy(),
  };
}

const SCRATCH_DELTA_TABLE = 'CREATE TEMP TABLE IF NOT EXISTS policy_delta (LIKE policy_delta INCLUDING ALL) ON COMMIT DELETE ROWS';

/** At most `max` of the calls run at once; the others wait their turn in order. */
function limiter(max: number): <T>(run: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async (run) => {
    if (running >= max) await new Promise<void>((resolve) => waiting.push(resolve));
    else running++;
    try {
      return await run();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}

async function currentSchema(db: Kysely<Schema>): Promise<string> {
  const { rows } = await sql<{ schema: string }>`SELECT current_schema() AS schema`.execute(db);
  return rows[0]!.schema;
}

/** The sum of the generation's shards (migrate.ts): it moves with every commit that moves any of them. */
async function readClusterGeneration(db: Kysely<Schema>): Promise<number> {
  const { rows } = await sql<{ value: number }>`SELECT sum(value) AS value FROM cluster_generation_shards`.execute(db);
  return rows[0]!.value;
}

/** Migrates on a connection of its own, under an advisory lock: instances starting together migrate once. */
async function migrateUnderLock(url: string, migrations: readonly Migration[]): Promise<void> {
  const db = new Kysely<Schema>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 1, types: pgNumberTypes }) }) });
  registerDialect(db, postgresDialect);
  try {
    await db.connection().execute(async (connection) => {
      const key = sql`${MIGRATION_LOCK}, hashtext(current_schema())`;
      await sql`SELECT pg_advisory_lock(${key})`.execute(connection);
      try {
        await translateErrors(() => migrate(connection as Db, migrations, toPostgres));
      } finally {
        await sql`SELECT pg_advisory_unlock(${key})`.execute(connection);
      }
    });
  } finally {
    await db.destroy();
  }
}

async function translateErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw toStoreError(error) ?? unstorableText(error) ?? error;
  }
}

/** SQLSTATEs for text PostgreSQL cannot hold: U+0000 in `text` (22021) or in `jsonb` (22P05). */
const UNSTORABLE_TEXT = new Set(['22021', '22P05']);

/**
 * PostgreSQL text cannot hold U+0000, which SQLite (and upstream's bolt) store like any character: a request that
 * carries one, in a body or an id, is refused as invalid rather than failing as a server error. No row can hold it,
 * so a lookup by such a value would have found nothing anyway.
 */
function unstorableText(error: unknown): ApiError | undefined {
  if (!(error instanceof pg.DatabaseError) || !UNSTORABLE_TEXT.has(error.code ?? '')) return undefined;
  return ApiError.withMessage('COULD_NOT_VALIDATE', 'text with a NUL character (U+0000) cannot be stored in PostgreSQL');
}

/** SQLSTATE class 23 (integrity constraint violation) codes pg reports. */
const CONSTRAINT_KINDS: Readonly<Record<string, StoreError['kind']>> = {
  '23505': 'unique',
  '23503': 'foreignKey',
  '23514': 'check',
  '23502': 'check',
};

/** Maps pg's constraint errors (`Key (name)=(x) already exists.`) to StoreError, with the table and key columns. */
export function toStoreError(error: unknown): StoreError | undefined {
  if (!(error instanceof pg.DatabaseError) || error.code === undefined) return undefined;
  const kind = CONSTRAINT_KINDS[error.code];
  if (!kind) return undefined;
  const key = /^Key \((.+?)\)=/.exec(error.detail ?? '');
  const columns = kind === 'unique' && key ? key[1]!.split(', ').map((column) => column.replace(/^"|"$/g, '')) : [];
  return new StoreError(kind, kind === 'foreignKey' ? undefined : error.table, columns, error.message);
}
