// The tables an import of upstream's database writes (src/migrate/), named by the kind of row they hold, and the
// writes themselves: rows as upstream had them, system rows replaced, and the emptiness an import requires.
import { countRows, deleteMatching, insertRows, type NewRow } from './table-rows.js';
import type { Db, TableName } from '../store.js';

/** Each imported kind's table, in an order that satisfies the tables' references. */
export const importedTables = {
  externalJwtSigner: 'external_jwt_signers',
  authPolicy: 'auth_policies',
  configType: 'config_types',
  config: 'configs',
  ca: 'cas',
  identity: 'identities',
  authenticator: 'authenticators',
  mfa: 'mfas',
  router: 'routers',
  enrollment: 'enrollments',
  service: 'services',
  terminator: 'terminators',
  postureCheck: 'posture_checks',
  servicePolicy: 'service_policies',
  edgeRouterPolicy: 'edge_router_policies',
  serviceEdgeRouterPolicy: 'service_edge_router_policies',
  serviceConfigOverride: 'identity_service_configs',
} as const satisfies Record<string, TableName>;

export type ImportedKind = keyof typeof importedTables;
/** A row of an imported kind, as its table takes it. */
export type ImportedRow<K extends ImportedKind> = NewRow<(typeof importedTables)[K]>;

/** Kinds a fresh store already holds system rows of (built-in config types, the default auth policy). */
const seededKinds: ReadonlySet<ImportedKind> = new Set(['configType', 'authPolicy']);

/**
 * Inserts rows of one kind. Rows with the id of a system row the store was created with replace it, so built-ins
 * keep upstream's timestamps and values.
 */
export async function insertImportedRows<K extends ImportedKind>(
  tx: Db,
  kind: K,
  rows: readonly ImportedRow<K>[],
): Promise<void> {
  const table: TableName = importedTables[kind];
  if (seededKinds.has(kind)) {
    const ids = rows.flatMap((row) => ('id' in row && typeof row.id === 'string' ? [row.id] : []));
    if (ids.length > 0) await deleteMatching(tx, table, { id: ids });
  }
  await insertRows(tx, importedTables[kind], [...rows]);
}

/** Tables that hold nothing in a store no network has been kept in. */
const networkTables: readonly TableName[] = ['identities', 'routers', 'services', 'configs', 'service_policies'];

/** The first table holding a network's rows, with its count; undefined when the store is empty. */
export async function firstNetworkRows(db: Db): Promise<{ table: string; count: number } | undefined> {
  for (const table of networkTables) {
    const count = await countRows(db, table);
    if (count > 0) return { table, count };
  }
  return undefined;
}
