// Rows referenced by id from elsewhere: whether they exist, and their names for the references views show.
import { dynamic } from '../connection.js';
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

export async function rowExists(db: Db, table: TableName, id: string): Promise<boolean> {
  return (await dynamic(db).selectFrom(table).select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
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
