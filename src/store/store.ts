// The storage interface domain code sees: asynchronous transactions handing out a `Db` handle that only the store's
// query modules (src/store/queries/) look inside, so SQLite and PostgreSQL implementations are interchangeable.
//
// Which query style a query module uses (connection.ts, prepared.ts):
// - `typed(db)`: the default, the query builder typed by the schema; for anything not run on every request.
// - `preparedQuery`: a fixed shape run on (nearly) every request (a session by token, a page of grants): built and
//   compiled once per store, then only its arguments change; PostgreSQL prepares it by its text.
// - `ShapeCache`: a shape that varies with more than its arguments (a list's filter, sort and scope): compiled once
//   per key, the least recently used forgotten.
// - `dynamic(db)`: only where the table is named at run time (entity definitions, derived tables); rows untyped.
// What kept answers (read-cache.ts) depend on is told by change keys (changes.ts), which every commit moves.
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

/** What a kept answer depends on (changes.ts): a table, one identity's own rows, or any identity's. */
export type ChangeKey = `table:${string}` | `identity:${string}`;

/** The read side every kept answer checks: when each key last moved, on a clock of this process. */
export interface ChangeClock {
  /** A point to compare later moves against: take it before reading what is to be kept. */
  now(): number;
  /** Whether any of `keys` moved after `since` (or everything was dropped since). */
  changedSince(keys: readonly ChangeKey[], since: number): boolean;
  /** The last move of any key: for tests and watchers that care whether anything moved at all. */
  readonly latest: number;
  /**
   * Calls `listener` after each write transaction this process commits, with the tables it changed rows in (bookkeeping
   * writes included): for work that should follow this process's own writes at once rather than at its next poll.
   */
  onLocalCommit(listener: (tables: ReadonlySet<string>) => void): void;
}

/** A stored table's (or view's) name, as the typed schema knows it. */
export type TableName = keyof Database;

// The handle is still the query builder while domain modules move their SQL into the store's query modules.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- dynamic table names until the move is done
export type Db = Kysely<any>;

export interface Store {
  /**
   * When what kept answers depend on last moved (changes.ts): moved by every committed write transaction but
   * bookkeeping ones (WriteOptions), for the tables it wrote and the identities whose own rows it wrote, this
   * process's or (once `refresh` has looked) another's on the same database.
   */
  readonly changes: ChangeClock;
  /**
   * Looks for commits other processes made (instances sharing the database, `workers`) and moves the keys they
   * changed. Called once at the start of every request, so each request sees every change committed before it
   * began, whichever instance made it; it costs one small read (PostgreSQL: the change log since the last look;
   * SQLite: a shared-memory check, and the log only when another process committed).
   */
  refresh(): Promise<void>;
  /** Runs `work` in one write transaction: everything it wrote commits together or not at all. */
  transaction<T>(work: (tx: Db) => Promise<T>, options?: WriteOptions): Promise<T>;
  /** Runs read-only work; it may share the connection with writers but never sees half a transaction. */
  read<T>(work: (db: Db) => Promise<T>): Promise<T>;
  /**
   * Runs long read-only work (an integrity scan) over one consistent view of the data without holding writers
   * back: its own connection in one read transaction, where the database allows it. The work may yield between
   * queries; it sees nothing committed after its first read.
   */
  readSnapshot<T>(work: (db: Db) => Promise<T>): Promise<T>;
  /**
   * Writes a consistent copy of the whole database to `file` while it keeps serving, a few pages at a time.
   * Undefined when the database has no such copy (PostgreSQL: its own tools take backups).
   */
  readonly backup: ((file: string) => Promise<void>) | undefined;
  close(): Promise<void>;
  /**
   * The driver's constraint error as a StoreError, for code that catches inside an open transaction (transaction()
   * itself translates whatever escapes it).
   */
  translateError(error: unknown): StoreError | undefined;
}

export interface WriteOptions {
  /**
   * The write changes nothing any cache holds (an instance heartbeat, session activity, a session create, a posture
   * report): it does not move the generation, here or on other instances, so nobody drops caches for it. Whoever
   * reads what it wrote reads it from the store, not from a cache (no kept answer reads sessions or reported posture).
   */
  bookkeeping?: boolean;
  /**
   * The write areas (writeAreas below) this write changes and bases its decisions on. A write that names them runs
   * beside writes of other areas (on PostgreSQL: across instances too) and takes turns only with writes of the same
   * area and with strict writes; a write that names none is strict and runs alone, as every write did before
   * (issue 26). So a new write is correct by default, and naming areas is a claim: nothing it reads for a decision
   * is changed by another area's write (policies, roles, services and the link tables are changed only by strict
   * writes). SQLite, which has one writer anyway, ignores it.
   */
  touches?: readonly string[];
  /**
   * Areas the write bases decisions on without changing them (only with `touches`): it runs beside other writes
   * that read them, and takes turns with writes that change them. The identities named in `touches` and `reads`
   * are whose own rows (changes.ts IDENTITY_OWNED) the write may change: its commit moves their answers only.
   */
  reads?: readonly string[];
  /**
   * The work decides on nothing before its first statement in the transaction (it reads nothing outside it first,
   * no cache, no other handle): on PostgreSQL BEGIN and the locks then go with that statement, a round trip less,
   * and the turn is held from that statement on rather than from the work's start (the statement runs, and takes
   * its snapshot, only once the locks are held). SQLite ignores it.
   */
  beginsAtFirstStatement?: boolean;
}

const NO_AREAS: readonly string[] = [];

/**
 * The areas writes name in `touches` and `reads`. An identity's area covers what belongs to it alone: its API
 * sessions, its posture data, its client info; whoever changes those holds it exclusively, whoever only decides on
 * them (a session create, a login) holds it shared.
 */
export const writeAreas = {
  identity: (identityId: string) => `identity:${identityId}`,
  /** One API session's own sessions (reuse is decided and made in one turn). */
  apiSession: (apiSessionId: string) => `api-session:${apiSessionId}`,
  /** The controller instances' rows (heartbeats). */
  controllerInstances: 'controller-instances',
  /** Rows each written by one statement that locks only them (API-session activity): no area lock at all. */
  rowsOnly: NO_AREAS,
};

/** A constraint the database refused, translated from the driver's error so callers need not know the driver. */
export class StoreError extends Error {
  constructor(
    readonly kind: 'unique' | 'foreignKey' | 'check',
    readonly table: string | undefined,
    readonly columns: string[],
    message: string,
  ) {
    super(message);
  }
}

/** The unique constraints callers turn into their rules' own errors, named for what they keep unique. */
const uniqueKeys = {
  /** One MFA per identity. */
  mfaOfIdentity: { table: 'mfas', column: 'identity_id' },
  /** One enrollment per method per identity. */
  enrollmentMethod: { table: 'enrollments', column: 'method' },
  terminatorId: { table: 'terminators', column: 'id' },
} as const satisfies Record<string, { table: TableName; column: string }>;

/**
 * Whether `error` (a StoreError, or the driver's error inside an open transaction) is the unique constraint `key`
 * names: the database's backstop for a check-then-insert rule, which callers turn into the rule's own error.
 */
export function isUniqueViolation(
  store: Pick<Store, 'translateError'>,
  error: unknown,
  key: keyof typeof uniqueKeys,
): boolean {
  const refused = error instanceof StoreError ? error : store.translateError(error);
  const { table, column } = uniqueKeys[key];
  return refused?.kind === 'unique' && refused.table === table && refused.columns.includes(column);
}

/** The same store with every write transaction run through `wrap` (a queue, a timer); the rest delegates. */
export function wrapTransactions(store: Store, wrap: <T>(run: () => Promise<T>) => Promise<T>): Store {
  return {
    changes: store.changes,
    refresh: () => store.refresh(),
    transaction: (work, options) => wrap(() => store.transaction(work, options)),
    read: (work) => store.read(work),
    readSnapshot: (work) => store.readSnapshot(work),
    backup: store.backup,
    close: () => store.close(),
    translateError: (error) => store.translateError(error),
  };
}
