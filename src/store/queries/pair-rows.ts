// The policy engine's pair tables seen by the entities' ids: they are keyed by the entities' integer keys (`seq`,
// migration 017), but the integrity scan and the tests name pairs by ids (`identity_id`, `service_id`), as the
// API does. Each pair column `x_seq` reads as `x_id`; writes find the keys of the ids they are given.
import { sql, type RawBuilder } from 'kysely';
import { StoreError, type Db } from '../store.js';
import { entityKinds, type PolicyKind } from './policy-tables.js';
import type { IdRange, Row } from './table-rows.js';

/** A pair table's rows with ids in place of keys: what the integrity scan compares and repairs. */
export interface PairRows {
  /** The id columns the rows carry, in the table's key order. */
  ids: readonly [string, string];
  /** Rows whose first entity's id lies in `range`. */
  inRange(db: Db, range: IdRange): Promise<Row[]>;
  /** The rows of the pairs `match` names by id (either id may be left out). */
  select(db: Db, match: Readonly<Row>): Promise<Row[]>;
  /** Adds the pair; a StoreError (foreign key) when either entity is gone. */
  insert(tx: Db, row: Readonly<Row>): Promise<void>;
  /** Adds many pairs in one statement (a fresh import's derivation); pairs whose entity is gone are left out. */
  insertMany(tx: Db, rows: readonly Readonly<Row>[]): Promise<void>;
  update(tx: Db, values: Readonly<Row>, match: Readonly<Row>): Promise<number>;
  delete(tx: Db, match: Readonly<Row>): Promise<number>;
}

const idColumn = (keyColumn: string) => keyColumn.replace(/_seq$/, '_id');

export function pairRows(kind: PolicyKind): PairRows {
  const { table, columns, counts } = kind.pairs;
  const entityTables = [entityKinds[kind.sides[0].entity].table, entityKinds[kind.sides[1].entity].table] as const;
  const ids = [idColumn(columns[0]), idColumn(columns[1])] as const;
  const pairs = sql.table(table);
  const keyOf = (index: 0 | 1, id: unknown) =>
    sql`(SELECT seq FROM ${sql.table(entityTables[index])} WHERE id = ${id})`;
  /** The key columns equal to the keys of the ids `match` names. */
  const where = (match: Readonly<Row>): RawBuilder<unknown> => {
    const conditions = ([0, 1] as const)
      .filter((index) => match[ids[index]] !== undefined)
      .map((index) => sql`${sql.ref(columns[index])} = ${keyOf(index, match[ids[index]])}`);
    return conditions.length > 0 ? sql.join(conditions, sql` AND `) : sql`1 = 1`;
  };
  // CROSS JOIN keeps SQLite's join order as written (PostgreSQL reads it as a plain join): from the first entities,
  // through their pairs by primary key. With one bound only (a walk's first and last chunk), SQLite would otherwise
  // read the whole pair table and look every first entity up.
  const selectWithIds = (condition: RawBuilder<unknown>) =>
    sql<Row>`SELECT a.id AS ${sql.ref(ids[0])}, b.id AS ${sql.ref(ids[1])}, ${sql.join(counts.map((count) => sql.ref(`p.${count}`)))}
      FROM ${sql.table(entityTables[0])} a CROSS JOIN ${pairs} p CROSS JOIN ${sql.table(entityTables[1])} b
      WHERE p.${sql.ref(columns[0])} = a.seq AND b.seq = p.${sql.ref(columns[1])} AND ${condition}`;
  return {
    ids,
    inRange: async (db, { after, upTo }) => {
      const bounds = [
        ...(after === undefined ? [] : [sql`a.id > ${after}`]),
        ...(upTo === undefined ? [] : [sql`a.id <= ${upTo}`]),
      ];
      return (await selectWithIds(bounds.length > 0 ? sql.join(bounds, sql` AND `) : sql`1 = 1`).execute(db)).rows;
    },
    select: async (db, match) => {
      const byId = ([0, 1] as const)
        .filter((index) => match[ids[index]] !== undefined)
        .map((index) => sql`${sql.ref(index === 0 ? 'a.id' : 'b.id')} = ${match[ids[index]]}`);
      return (await selectWithIds(byId.length > 0 ? sql.join(byId, sql` AND `) : sql`1 = 1`).execute(db)).rows;
    },
    insert: async (tx, row) => {
      const values = sql.join(counts.map((count) => sql`${row[count] ?? 0}`));
      const result =
        await sql`INSERT INTO ${pairs} (${sql.ref(columns[0])}, ${sql.ref(columns[1])}, ${sql.join(counts.map((count) => sql.ref(count)))})
        SELECT a.seq, b.seq, ${values} FROM ${sql.table(entityTables[0])} a, ${sql.table(entityTables[1])} b WHERE a.id = ${row[ids[0]]} AND b.id = ${row[ids[1]]}`.execute(
          tx,
        );
      if (Number(result.numAffectedRows ?? 0) === 0)
        throw new StoreError(
          'foreignKey',
          table,
          [...ids],
          `${table}: no entity for ${String(row[ids[0]])} or ${String(row[ids[1]])}`,
        );
    },
    insertMany: async (tx, rows) => {
      if (rows.length === 0) return;
      // The VALUES columns are column1, column2, … on both databases; counts are cast so PostgreSQL types them.
      const values = sql.join(
        rows.map(
          (row) =>
            sql`(${row[ids[0]]}, ${row[ids[1]]}, ${sql.join(counts.map((count) => sql`CAST(${row[count] ?? 0} AS BIGINT)`))})`,
        ),
      );
      const picked = sql.join(counts.map((_, index) => sql.ref(`v.column${index + 3}`)));
      await sql`INSERT INTO ${pairs} (${sql.ref(columns[0])}, ${sql.ref(columns[1])}, ${sql.join(counts.map((count) => sql.ref(count)))})
        SELECT a.seq, b.seq, ${picked} FROM (VALUES ${values}) AS v
        JOIN ${sql.table(entityTables[0])} a ON a.id = v.column1 JOIN ${sql.table(entityTables[1])} b ON b.id = v.column2`.execute(
        tx,
      );
    },
    update: async (tx, values, match) => {
      const assignments = sql.join(Object.entries(values).map(([column, value]) => sql`${sql.ref(column)} = ${value}`));
      const result = await sql`UPDATE ${pairs} SET ${assignments} WHERE ${where(match)}`.execute(tx);
      return Number(result.numAffectedRows ?? 0);
    },
    delete: async (tx, match) =>
      Number((await sql`DELETE FROM ${pairs} WHERE ${where(match)}`.execute(tx)).numAffectedRows ?? 0),
  };
}
