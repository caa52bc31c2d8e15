// The PostgreSQL store: a pg connection pool behind the same Store interface as SQLite, for operators who run
// the controller on a database they already keep (docs/design.md part 0).
import pg from 'pg';
import { Kysely, PostgresDialect, sql } from 'kysely';
import { ApiError } from '../../errors/api-error.js';
import { mustAt } from '../../lib/collections.js';
import { registerDialect } from '../connection.js';
import { Changes } from '../changes.js';
import { CHANGE_LOG_KEPT_SECONDS, CHANGE_LOG_PRUNE_EVERY, migrate, type Migration } from '../migrations/migrate.js';
import type { Database as Schema } from '../schema.js';
import { StoreError, type Store } from '../store.js';
import { holdInstanceLock } from './instance-lock.js';
import { LongValueListsPlugin } from './long-value-lists.js';
import { postgresDialect, preparedName } from './postgres-dialect.js';
import { toPostgres } from './translate-migration.js';
import { writeTransactions } from './write-transactions.js';

export interface PostgresStoreOptions {
  /**
   * `postgres://user:password@host:port/database` (libpq's parameters, e.g. `?sslmode=require`, `options=-c
   * search_path=s`).
   */
  url: string;
  migrations: readonly Migration[];
  /** Connections at most (default 10). */
  poolSize?: number;
  /** A controller's: held as its liveness lock while the store is open (instance-lock.ts). */
  instance?: { id: string; onLockError: (error: unknown) => void };
}

/**
 * The advisory lock controllers take while they migrate (with the schema's name as its second key, so controllers
 * on other schemas of the same database do not wait for each other): instances starting together migrate once.
 */
const MIGRATION_LOCK = 0x5a495449; // "ZITI"

/** BIGINT (int8) and NUMERIC, which pg reads as strings, read as numbers, as SQLite's driver reads its integers. */
const NUMBER_TYPES: ReadonlySet<number> = new Set([20, 1700]);

export const pgNumberTypes: pg.CustomTypesConfig = {
  // pg declares getTypeParser with overloads per format, which one function with a union cannot be declared as.
  getTypeParser: ((oid: number, format?: 'text' | 'binary'): unknown =>
    NUMBER_TYPES.has(oid) ? Number : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

export async function openPostgresStore({
  url,
  migrations,
  poolSize = 10,
  instance,
}: PostgresStoreOptions): Promise<Store> {
  await migrateUnderLock(url, migrations);
  const lock = instance ? await holdInstanceLock(url, instance.id, instance.onLockError) : undefined;
  // The policy engine's delta (policy-links.ts) lives in a temporary table of each connection, emptied at every
  // commit, which shadows the schema's table of the same name (pg_temp comes first in every search path): one
  // transaction's scratch rows are never another's, and they cost no WAL. Made before the connection's first query
  // (pg-pool waits for onConnect). Should it fail, the schema's table still serves, correct as the policy engine's
  // writes are strict (run alone).
  const settings: PoolSettings = {
    connectionString: url,
    max: poolSize,
    // A write transaction sends statements without waiting for the answers before them (write-transactions.ts).
    pipeline: true,
    types: pgNumberTypes,
    onConnect: async (client) => {
      await client.query(SCRATCH_DELTA_TABLE).catch(() => undefined);
      prepareByName(client);
    },
  };
  const pool = new pg.Pool(settings);
  // An idle connection the server closed must not take the process down; the next query opens another.
  pool.on('error', () => undefined);
  const db = new Kysely<Schema>({ dialect: new PostgresDialect({ pool }), plugins: [new LongValueListsPlugin()] });
  registerDialect(db, postgresDialect);

  const writer = writeTransactions(pool, await currentSchema(db), db, [new LongValueListsPlugin()]);
  const changes = new Changes();
  const log = changeLogReader(pool, changes);
  await log.refresh();
  let logged = 0;
  // Strict writes run one at a time in this process (a waiting one holds no pooled connection); area writes run at
  // once up to a bound that leaves connections to the reads (a write's work may read beside its transaction).
  let strictWrites: Promise<unknown> = Promise.resolve();
  const areaWrites = limiter(Math.max(1, poolSize - 3));
  return {
    changes,
    refresh: () => log.refresh(),
    transaction: async (work, options) => {
      const write = () => translateErrors(() => writer.run(work, options));
      let done: ReturnType<typeof write>;
      if (options?.touches === undefined) {
        done = strictWrites.then(write);
        strictWrites = done.catch(() => undefined);
      } else done = areaWrites(write);
      const { result, committed } = await done;
      changes.moved(committed.keys);
      changes.committedHere(committed.tables);
      if (committed.xid !== undefined) {
        log.own(committed.xid);
        if (++logged % CHANGE_LOG_PRUNE_EVERY === 0) void pool.query(PRUNE_CHANGE_LOG).catch(() => undefined);
      }
      return result;
    },
    read: (work) => translateErrors(() => work(db)),
    // One connection in one REPEATABLE READ transaction sees the data as of its first query, writers unhindered.
    readSnapshot: (work) =>
      translateErrors(() =>
        db
          .transaction()
          .setIsolationLevel('repeatable read')
          .setAccessMode('read only')
          .execute((tx) => work(tx)),
      ),
    backup: undefined,
    translateError: toStoreError,
    close: async () => {
      await lock?.release();
      await db.destroy();
    },
  };
}

/**
 * The connection's statements whose text is one to keep prepared (postgres-dialect.ts keepPrepared) are sent under
 * their name: the server parses and plans each once per connection. A proxy keeps pg's overloaded query().
 */
/** pg-pool (3.6 on) waits for the promise onConnect answers before it hands the connection out; @types/pg says void. */
interface PoolSettings extends Omit<pg.PoolConfig, 'onConnect'> {
  onConnect(client: pg.ClientBase): Promise<void>;
}

function prepareByName(client: pg.ClientBase): void {
  client.query = new Proxy(client.query.bind(client), {
    apply(send, self, args: unknown[]): unknown {
      const [text, values] = args;
      const name = typeof text === 'string' ? preparedName(text) : undefined;
      // Reflect.apply answers `any`: passed on as pg's own answer, unlooked at.
      return Reflect.apply(send, self, name === undefined ? args : [{ name, text, values }]);
    },
  });
}

const SCRATCH_DELTA_TABLE =
  'CREATE TEMP TABLE IF NOT EXISTS policy_delta (LIKE policy_delta INCLUDING ALL) ON COMMIT DELETE ROWS';

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
  return mustAt(rows, 0).schema;
}

/**
 * The change log since this process's last look (migrate.ts CHANGE_LOG): the commits its previous snapshot did not
 * see, read with the snapshot that becomes the next look's (one round trip, a statement prepared by name). Commits
 * of this process are moved when made and skipped here. What was seen is lost only when a prune ran since the last
 * look (`prunes` moved) and went past what that look's snapshot had not seen.
 */
function changeLogReader(pool: pg.Pool, changes: Changes): { refresh(): Promise<void>; own(xid: string): void } {
  let snapshot: string | undefined;
  let prunes: string | undefined;
  const own = new Set<string>();
  const look = async (): Promise<void> => {
    if (snapshot === undefined) {
      const { rows } = await pool.query<{ snapshot: string; prunes: string }>({
        name: 'ziti-changes-start',
        text: START_CHANGE_LOG,
      });
      [snapshot, prunes] = [rows[0]?.snapshot, rows[0]?.prunes];
      return;
    }
    const { rows } = await pool.query<{
      snapshot: string;
      prunes: string;
      lost: boolean | null;
      changes: [string, string[]][] | null;
    }>({ name: 'ziti-changes', text: READ_CHANGE_LOG, values: [snapshot, prunes] });
    const [seen] = rows;
    if (!seen) return;
    [snapshot, prunes] = [seen.snapshot, seen.prunes];
    if (seen.lost === true) changes.movedAll();
    for (const [xid, keys] of seen.changes ?? []) {
      if (own.delete(xid)) continue;
      changes.moved(keys);
    }
  };
  // One look at a time. A caller that comes while one is on its way waits for the next, sent once that one is
  // answered and shared by every caller that came meanwhile: its snapshot is taken after each of them called, so each
  // sees every commit made before it called (a look already on its way may have taken its snapshot before).
  let current: Promise<void> | undefined;
  let queued: Promise<void> | undefined;
  const start = (): Promise<void> => {
    const started = look().finally(() => {
      if (current === started) current = undefined;
    });
    current = started;
    return started;
  };
  return {
    refresh() {
      if (current === undefined) return start();
      queued ??= current
        .catch(() => undefined)
        .then(() => {
          queued = undefined;
          return start();
        });
      return queued;
    },
    own(xid) {
      // Bounded: entries of commits no look saw (pruned first) would otherwise stay; forgetting one costs a move.
      if (own.size >= 10_000) own.clear();
      own.add(xid);
    },
  };
}

const START_CHANGE_LOG = `SELECT pg_current_snapshot()::text AS snapshot,
  (SELECT prunes::text FROM cluster_changes_pruned WHERE id = 1) AS prunes`;

const READ_CHANGE_LOG = `SELECT pg_current_snapshot()::text AS snapshot, pruned.prunes::text AS prunes,
  pruned.prunes::text IS DISTINCT FROM $2::text AND pg_snapshot_xmin($1::pg_snapshot) <= pruned.through AS lost,
  (SELECT json_agg(json_build_array(xid::text, keys::json)) FROM cluster_changes
    WHERE xid >= pg_snapshot_xmin($1::pg_snapshot) AND NOT pg_visible_in_snapshot(xid, $1::pg_snapshot)) AS changes
  FROM cluster_changes_pruned AS pruned WHERE pruned.id = 1`;

/** Drops the change log's old rows and records up to which transaction it did (one statement: its own transaction). */
const PRUNE_CHANGE_LOG = `WITH gone AS (DELETE FROM cluster_changes WHERE at < clock_timestamp() - interval '${CHANGE_LOG_KEPT_SECONDS} seconds' RETURNING xid)
  UPDATE cluster_changes_pruned SET through = greatest(through, (SELECT max(xid) FROM gone)), prunes = prunes + 1
    WHERE id = 1 AND EXISTS (SELECT 1 FROM gone)`;

/** Migrates on a connection of its own, under an advisory lock: instances starting together migrate once. */
async function migrateUnderLock(url: string, migrations: readonly Migration[]): Promise<void> {
  const db = new Kysely<Schema>({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 1, types: pgNumberTypes }) }),
  });
  registerDialect(db, postgresDialect);
  try {
    await db.connection().execute(async (connection) => {
      const key = sql`${MIGRATION_LOCK}, hashtext(current_schema())`;
      await sql`SELECT pg_advisory_lock(${key})`.execute(connection);
      try {
        await translateErrors(() => migrate(connection, migrations, toPostgres));
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
/** program_limit_exceeded: a value too long for a unique index's row (about 2.7 kB; e.g. a huge externalId). */
const PROGRAM_LIMIT_EXCEEDED = '54000';

/**
 * PostgreSQL text cannot hold U+0000, which SQLite (and upstream's bolt) store like any character: a request that
 * carries one, in a body or an id, is refused as invalid rather than failing as a server error. No row can hold it,
 * so a lookup by such a value would have found nothing anyway. A value too long for a unique index is refused alike.
 */
function unstorableText(error: unknown): ApiError | undefined {
  if (!(error instanceof pg.DatabaseError)) return undefined;
  if (error.code === PROGRAM_LIMIT_EXCEEDED)
    return ApiError.withMessage('COULD_NOT_VALIDATE', 'a value is too long to be indexed by PostgreSQL');
  if (!UNSTORABLE_TEXT.has(error.code ?? '')) return undefined;
  return ApiError.withMessage(
    'COULD_NOT_VALIDATE',
    'text with a NUL character (U+0000) cannot be stored in PostgreSQL',
  );
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
  const keyColumns = /^Key \((.+?)\)=/.exec(error.detail ?? '')?.[1];
  const columns =
    kind === 'unique' && keyColumns ? keyColumns.split(', ').map((column) => column.replace(/^"|"$/g, '')) : [];
  return new StoreError(kind, kind === 'foreignKey' ? undefined : error.table, columns, error.message);
}
