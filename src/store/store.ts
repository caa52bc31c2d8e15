// The storage interface domain code sees: asynchronous transactions over a Kysely handle, so SQLite and
// PostgreSQL implementations are interchangeable.
import type { Kysely } from 'kysely';

// Tables are declared by entity definitions at run time, so the query builder is untyped here; entity
// definitions and the kit give rows their types at the edges.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- dynamic table names; see comment above
export type Db = Kysely<any>;

export type StoreDialect = 'sqlite' | 'postgres';

export interface Store {
  readonly dialect: StoreDialect;
  /** Counts committed write transactions: a cached read is still valid while this has not moved. */
  readonly generation: number;
  /** Runs `work` in one write transaction: everything it wrote commits together or not at all. */
  transaction<T>(work: (tx: Db) => Promise<T>): Promise<T>;
  /** Runs read-only work; it may share the connection with writers but never sees half a transaction. */
  read<T>(work: (db: Db) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /**
   * The driver's constraint error as a StoreError, for code that catches inside an open transaction (transaction()
   * itself translates whatever escapes it).
   */
  translateError(error: unknown): StoreError | undefined;
}

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
