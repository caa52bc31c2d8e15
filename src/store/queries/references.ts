// Rows referenced by id from elsewhere: whether they exist, and their names for the references views show.
import { sql } from 'kysely';
import { dynamic } from '../connection.js';
import { ShapeCache } from '../prepared.js';
import type { Db, TableName } from '../store.js';

/** Tables of named entities. */
export type NamedTable =
  'identities' | 'services' | 'routers' | 'service_policies' | 'posture_checks' | 'configs' | 'config_types' | 'cas';

/** The named entities' tables by the words callers use for them: only the store spells the tables. */
export const named = {
  identity: 'identities',
  service: 'services',
  router: 'routers',
  servicePolicy: 'service_policies',
  ca: 'cas',
} as const satisfies Record<string, NamedTable>;

/** One shape per list of tables looked in; kept prepared (every terminator create asks). */
const existence = new ShapeCache(16, true);

/** Whether each of `rows` exists, in one statement: a create's references cost one round trip, not one each. */
export async function rowsExist(db: Db, rows: readonly { table: TableName; id: string }[]): Promise<boolean[]> {
  if (rows.length === 0) return [];
  const [found] = await existence.run<Record<string, unknown>>(
    db,
    rows.map(({ table }) => table).join(','),
    rows.map(({ id }) => id),
    (_q, ids) =>
      sql`SELECT ${sql.join(
        rows.map(
          ({ table }, index) =>
            sql`CASE WHEN EXISTS (SELECT 1 FROM ${sql.table(table)} WHERE id = ${ids[index]}) THEN 1 ELSE 0 END AS ${sql.ref(`found${index}`)}`,
        ),
      )}`,
  );
  return rows.map((_, index) => Number(found?.[`found${index}`]) === 1);
}

/** Those of `ids` that have a row; with `flag`, only rows where that 0/1 column is 1 (edge routers among routers). */
export async function existingIds(
  db: Db,
  table: TableName,
  ids: readonly string[],
  flag?: string,
): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  let query = dynamic(db)
    .selectFrom(table)
    .select('id')
    .where('id', 'in', [...new Set(ids)]);
  if (flag) query = query.where(flag, '=', 1);
  return new Set((await query.execute()).map((row) => String(row.id)));
}

/** id → name of those of `ids` that exist. */
export async function namesOf(db: Db, table: NamedTable, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await dynamic(db)
    .selectFrom(table)
    .select(['id', 'name'])
    .where('id', 'in', [...new Set(ids)])
    .execute();
  return new Map(rows.map((row) => [String(row.id), String(row.name)]));
}
