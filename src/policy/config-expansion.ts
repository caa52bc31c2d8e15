// A service's `config` map for one identity: the configs of the wanted config types, keyed by type name, with the
// identity's service-config overrides taking precedence (ziti `model/edge_service_manager.go` mergeConfigs).
import { sql } from 'kysely';
import type { Db } from '../store/store.js';

/** Which config types a caller wants: every one (`all`) or these ids; an empty id list wants none. */
export type ConfigTypeSelection = { all: true } | { all: false; ids: readonly string[] };

const ALL = 'all';

/**
 * Names or ids as clients send them (at login, or `?configTypes=` per request) → what the API session stores:
 * `["all"]` when `all` is among them, else the ids of the types found, looked up by id first, then by name.
 * Unknown values are dropped silently (ziti `model/config_type_manager.go` MapConfigTypeNamesToIds).
 */
export async function resolveConfigTypes(db: Db, values: readonly string[]): Promise<string[]> {
  if (values.includes(ALL)) return [ALL];
  const wanted = [...new Set(values)];
  if (wanted.length === 0) return [];
  const rows = await db
    .selectFrom('config_types')
    .select(['id', 'name'])
    .where((eb) => eb.or([eb('id', 'in', wanted), eb('name', 'in', wanted)]))
    .execute();
  const byId = new Set(rows.map((row) => row.id as string));
  const idByName = new Map(rows.map((row) => [row.name as string, row.id as string]));
  const ids = wanted.flatMap((value) => (byId.has(value) ? [value] : idByName.has(value) ? [idByName.get(value)!] : []));
  return [...new Set(ids)];
}

export function selectionOf(resolved: readonly string[]): ConfigTypeSelection {
  return resolved.includes(ALL) ? { all: true } : { all: false, ids: resolved };
}

/** The selection an API session made at login; values stored before login resolved them are resolved here. */
export async function sessionConfigTypes(db: Db, apiSessionId: string): Promise<ConfigTypeSelection> {
  const row = await db.selectFrom('api_sessions').select('config_types').where('id', '=', apiSessionId).executeTakeFirst();
  const stored = row?.config_types ? (JSON.parse(row.config_types as string) as string[]) : [];
  return selectionOf(await resolveConfigTypes(db, stored));
}

interface ConfigRow {
  service_id: string;
  type_name: string;
  data: string;
}

/**
 * `config` for each service of a page: the service's own configs of a wanted type, then the identity's
 * overrides of a wanted type on top. Keys are type names in byte order (Go encodes map keys sorted).
 * Two queries for the whole page, whatever its size.
 */
export async function expandConfigs(
  db: Db,
  identityId: string | undefined,
  serviceIds: readonly string[],
  selection: ConfigTypeSelection,
): Promise<Map<string, Record<string, unknown>>> {
  const result = new Map<string, Record<string, unknown>>(serviceIds.map((id) => [id, {}]));
  if (serviceIds.length === 0 || (!selection.all && selection.ids.length === 0)) return result;
  const wantedType = selection.all ? sql`1 = 1` : sql`c.config_type_id IN (${sql.join(selection.ids)})`;
  const services = sql.join(serviceIds);
  const own = await sql<ConfigRow>`SELECT sc.entity_id AS service_id, ct.name AS type_name, c.data AS data
    FROM service_configs sc JOIN configs c ON c.id = sc.value JOIN config_types ct ON ct.id = c.config_type_id
    WHERE sc.entity_id IN (${services}) AND ${wantedType}`.execute(db);
  const overrides = identityId
    ? await sql<ConfigRow>`SELECT o.service_id AS service_id, ct.name AS type_name, c.data AS data
        FROM identity_service_configs o JOIN configs c ON c.id = o.config_id JOIN config_types ct ON ct.id = o.config_type_id
        WHERE o.identity_id = ${identityId} AND o.service_id IN (${services}) AND ${wantedType}`.execute(db)
    : { rows: [] };
  // Overrides come second, so they replace the service's own config of the same type.
  for (const row of [...own.rows, ...overrides.rows]) {
    result.get(row.service_id)![row.type_name] = JSON.parse(row.data) as unknown;
  }
  for (const [id, config] of result) result.set(id, sortedKeys(config));
  return result;
}

function sortedKeys(map: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.keys(map).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).map((key) => [key, map[key]]));
}
