// A service's `config` map for one identity: the configs of the wanted config types, keyed by type name, with the
// identity's service-config overrides taking precedence (ziti `model/edge_service_manager.go` mergeConfigs).
import {
  apiSessionConfigTypes,
  configsForServices,
  configTypesNamed,
  type ConfigTypeSelection,
} from '../store/queries/configs.js';
import type { Db } from '../store/store.js';
import { mustGet } from '../lib/collections.js';
import { parseJsonValue, stringList } from '../lib/json-value.js';

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
  const rows = await configTypesNamed(db, wanted);
  const byId = new Set(rows.map((row) => row.id));
  const idByName = new Map(rows.map((row) => [row.name, row.id]));
  const ids = wanted.flatMap((value) => (byId.has(value) ? [value] : (idByName.get(value) ?? [])));
  return [...new Set(ids)];
}

export function selectionOf(resolved: readonly string[]): ConfigTypeSelection {
  return resolved.includes(ALL) ? { all: true } : { all: false, ids: resolved };
}

/** The selection an API session made at login; values stored before login resolved them are resolved here. */
export async function sessionConfigTypes(db: Db, apiSessionId: string): Promise<ConfigTypeSelection> {
  return storedConfigTypes(db, (await apiSessionConfigTypes(db, apiSessionId)) ?? null);
}

/** As sessionConfigTypes, from the session's stored value already read (the caller's session: CallerSession). */
export async function storedConfigTypes(db: Db, types: string | null): Promise<ConfigTypeSelection> {
  const stored = types ? (stringList(parseJsonValue(types)) ?? []) : [];
  return selectionOf(await resolveConfigTypes(db, stored));
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
  const { own, overrides } = await configsForServices(db, identityId, serviceIds, selection);
  // Overrides come second, so they replace the service's own config of the same type.
  for (const row of [...own, ...overrides]) {
    mustGet(result, row.serviceId)[row.typeName] = parseJsonValue(row.data);
  }
  for (const [id, config] of result) if (Object.keys(config).length > 1) result.set(id, sortedKeys(config));
  return result;
}

function sortedKeys(map: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.keys(map)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
      .map((key) => [key, map[key]]),
  );
}
