// Config types, configs and the identity service-config overrides: lookups the config and service rules make, the
// configs a service list expands for a page of services, and the overrides an identity keeps.
import { sql } from 'kysely';
import { typed } from '../connection.js';
import { inTextList, preparedQuery } from '../prepared.js';
import type { Db } from '../store.js';

/** A config type's stored JSON schema (null when it has none); undefined when the type does not exist. */
export async function configTypeSchema(db: Db, id: string): Promise<string | null | undefined> {
  const row = await typed(db).selectFrom('config_types').select('schema').where('id', '=', id).executeTakeFirst();
  return row ? row.schema : undefined;
}

const selectConfigTypesNamed = preparedQuery(
  (q, idsOrNames: readonly string[]) => sql<{ id: string; name: string }>`SELECT id, name FROM config_types
    WHERE id IN ${inTextList(q, idsOrNames)} OR name IN ${inTextList(q, idsOrNames)}`,
);

/** id and name of config types given by id or by name. */
export async function configTypesNamed(db: Db, idsOrNames: readonly string[]): Promise<{ id: string; name: string }[]> {
  if (idsOrNames.length === 0) return [];
  return selectConfigTypesNamed(db, idsOrNames);
}

/** id → name of these config types. */
export async function configTypeNames(db: Db, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await typed(db).selectFrom('config_types').select(['id', 'name']).where('id', 'in', ids).execute();
  return new Map(rows.map((row) => [row.id, row.name]));
}

export async function hasConfigsOfType(db: Db, configTypeId: string): Promise<boolean> {
  return (
    (await typed(db)
      .selectFrom('configs')
      .select('id')
      .where('config_type_id', '=', configTypeId)
      .limit(1)
      .executeTakeFirst()) !== undefined
  );
}

/** Each of these configs that exists, with its type's id and name. */
export async function configsWithTypes(
  db: Db,
  ids: readonly string[],
): Promise<{ id: string; name: string; typeId: string; typeName: string }[]> {
  if (ids.length === 0) return [];
  return typed(db)
    .selectFrom('configs as c')
    .innerJoin('config_types as ct', 'ct.id', 'c.config_type_id')
    .select(['c.id as id', 'c.name as name', 'c.config_type_id as typeId', 'ct.name as typeName'])
    .where('c.id', 'in', ids)
    .execute();
}

/** config id → its type's id, for those of these configs that exist. */
export async function configTypeIds(db: Db, configIds: readonly string[]): Promise<Map<string, string>> {
  if (configIds.length === 0) return new Map();
  const rows = await typed(db)
    .selectFrom('configs')
    .select(['id', 'config_type_id'])
    .where('id', 'in', configIds)
    .execute();
  return new Map(rows.map((row) => [row.id, row.config_type_id]));
}

/** The services a config is attached to, by id. */
export async function servicesUsingConfig(db: Db, configId: string): Promise<string[]> {
  const rows = await typed(db)
    .selectFrom('service_configs')
    .select('entity_id')
    .where('value', '=', configId)
    .orderBy('entity_id')
    .execute();
  return rows.map((row) => row.entity_id);
}

/** Which config types a caller wants: every one (`all`) or these ids; an empty id list wants none. */
export type ConfigTypeSelection = { all: true } | { all: false; ids: readonly string[] };

export interface ExpandedConfig {
  serviceId: string;
  typeName: string;
  /** The config's data as stored (JSON text). */
  data: string;
}

/**
 * The configs of the wanted types for a page of services: the services' own (`own`), and the identity's overrides
 * (`overrides`, empty without an identity). One query whatever the page's size.
 */
export async function configsForServices(
  db: Db,
  identityId: string | undefined,
  serviceIds: readonly string[],
  selection: ConfigTypeSelection,
): Promise<{ own: ExpandedConfig[]; overrides: ExpandedConfig[] }> {
  const rows = await (selection.all ? ofEveryType : ofListedTypes)(
    db,
    serviceIds,
    selection.all ? [] : selection.ids,
    identityId ?? null,
  );
  return { own: rows.filter((row) => !row.isOverride), overrides: rows.filter((row) => row.isOverride) };
}

/** configsForServices' query, for every config type or for those listed; an override's row says so. */
function configQuery(wantsAll: boolean) {
  const wantedType = (db: Db, typeIds: readonly string[]) =>
    wantsAll ? sql`1 = 1` : sql`c.config_type_id IN ${inTextList(db, typeIds)}`;
  return preparedQuery(
    (q, serviceIds: readonly string[], typeIds: readonly string[], identityId: string | null) => sql<
      ExpandedConfig & { isOverride: number }
    >`SELECT sc.entity_id AS "serviceId", ct.name AS "typeName", c.data AS data, 0 AS "isOverride"
      FROM service_configs sc JOIN configs c ON c.id = sc.value JOIN config_types ct ON ct.id = c.config_type_id
      WHERE sc.entity_id IN ${inTextList(q, serviceIds)} AND ${wantedType(q, typeIds)}
      UNION ALL
      SELECT o.service_id AS "serviceId", ct.name AS "typeName", c.data AS data, 1 AS "isOverride"
      FROM identity_service_configs o JOIN configs c ON c.id = o.config_id JOIN config_types ct ON ct.id = o.config_type_id
      WHERE o.identity_id = ${identityId} AND o.service_id IN ${inTextList(q, serviceIds)} AND ${wantedType(q, typeIds)}`,
  );
}

const ofEveryType = configQuery(true);
const ofListedTypes = configQuery(false);

export interface OverrideRow {
  serviceId: string;
  serviceName: string;
  configId: string;
  configName: string;
}

/** An identity's overrides, ordered as upstream's buckets iterate: by service id, then config type id. */
export async function listOverrides(db: Db, identityId: string): Promise<OverrideRow[]> {
  return typed(db)
    .selectFrom('identity_service_configs as o')
    .innerJoin('services as s', 's.id', 'o.service_id')
    .innerJoin('configs as c', 'c.id', 'o.config_id')
    .select(['o.service_id as serviceId', 's.name as serviceName', 'o.config_id as configId', 'c.name as configName'])
    .where('o.identity_id', '=', identityId)
    .orderBy('o.service_id')
    .orderBy('o.config_type_id')
    .execute();
}

export interface Override {
  serviceId: string;
  configTypeId: string;
  configId: string;
}

/** Sets each override, replacing an earlier one of the same config type for that service. */
export async function upsertOverrides(tx: Db, identityId: string, overrides: readonly Override[]): Promise<void> {
  if (overrides.length === 0) return;
  await typed(tx)
    .insertInto('identity_service_configs')
    .values(
      overrides.map((o) => ({
        identity_id: identityId,
        service_id: o.serviceId,
        config_type_id: o.configTypeId,
        config_id: o.configId,
      })),
    )
    .onConflict((conflict) =>
      conflict
        .columns(['identity_id', 'service_id', 'config_type_id'])
        .doUpdateSet({ config_id: sql.ref('excluded.config_id') }),
    )
    .execute();
}

/** Removes exactly these (service, config) pairs of the identity; none at all removes every override it has. */
export async function deleteOverrides(
  tx: Db,
  identityId: string,
  pairs: readonly { serviceId: string; configId: string }[],
): Promise<void> {
  const removal = typed(tx).deleteFrom('identity_service_configs').where('identity_id', '=', identityId);
  if (pairs.length === 0) await removal.execute();
  // One statement per pair: an OR of a thousand pairs passes SQLite's expression depth limit.
  for (const pair of pairs)
    await removal.where('service_id', '=', pair.serviceId).where('config_id', '=', pair.configId).execute();
}

/** The first override that uses a config, if any. */
export async function overrideUsingConfig(
  db: Db,
  configId: string,
): Promise<{ identityId: string; serviceId: string } | undefined> {
  return typed(db)
    .selectFrom('identity_service_configs')
    .select(['identity_id as identityId', 'service_id as serviceId'])
    .where('config_id', '=', configId)
    .orderBy('identity_id')
    .orderBy('service_id')
    .executeTakeFirst();
}

/** Those of these services that exist. */
export async function existingServices(db: Db, serviceIds: readonly string[]): Promise<Set<string>> {
  if (serviceIds.length === 0) return new Set();
  const rows = await typed(db).selectFrom('services').select('id').where('id', 'in', serviceIds).execute();
  return new Set(rows.map((row) => row.id));
}

/** The config types an API session selected at login (JSON text), or null. */
const selectSessionConfigTypes = preparedQuery((q, apiSessionId: string) =>
  q.selectFrom('api_sessions').select('config_types').where('id', '=', apiSessionId),
);

export async function apiSessionConfigTypes(db: Db, apiSessionId: string): Promise<string | null | undefined> {
  const [row] = await selectSessionConfigTypes(db, apiSessionId);
  return row?.config_types;
}
