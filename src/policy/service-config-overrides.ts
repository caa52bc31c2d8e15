// Identity service-config overrides: for one identity and service, the config of a type to use instead of the
// service's own (ziti `db/identity_store.go` AssignServiceConfigs / RemoveServiceConfigs, `model` toBoltServiceConfigs).
import { sql } from 'kysely';
import { ApiError } from '../errors/api-error.js';
import type { Db } from '../store/store.js';
import { touchServiceLists } from '../store/queries/service-lists.js';

export interface ServiceConfigPair {
  serviceId: string;
  configId: string;
}

export interface OverrideRow {
  serviceId: string;
  serviceName: string;
  configId: string;
  configName: string;
}

/** An identity's overrides, ordered as upstream's buckets iterate: by service id, then config type id. */
export async function listOverrides(db: Db, identityId: string): Promise<OverrideRow[]> {
  const rows = await db
    .selectFrom('identity_service_configs as o')
    .innerJoin('services as s', 's.id', 'o.service_id')
    .innerJoin('configs as c', 'c.id', 'o.config_id')
    .select(['o.service_id', 's.name as service_name', 'o.config_id', 'c.name as config_name'])
    .where('o.identity_id', '=', identityId)
    .orderBy('o.service_id')
    .orderBy('o.config_type_id')
    .execute();
  return rows.map((row) => ({
    serviceId: row.service_id as string,
    serviceName: row.service_name as string,
    configId: row.config_id as string,
    configName: row.config_name as string,
  }));
}

/** Each pair's service and config must exist (404, as upstream); returns each pair's config type. */
async function configTypesOf(tx: Db, pairs: readonly ServiceConfigPair[]): Promise<string[]> {
  const serviceIds = [...new Set(pairs.map((pair) => pair.serviceId))];
  const configIds = [...new Set(pairs.map((pair) => pair.configId))];
  const services = new Set((await tx.selectFrom('services').select('id').where('id', 'in', serviceIds).execute()).map((row) => row.id as string));
  const configs = await tx.selectFrom('configs').select(['id', 'config_type_id']).where('id', 'in', configIds).execute();
  const typeOf = new Map(configs.map((row) => [row.id as string, row.config_type_id as string]));
  return pairs.map(({ serviceId, configId }) => {
    if (!services.has(serviceId)) throw ApiError.withMessage('NOT_FOUND', `service with id or name ${serviceId} not found`);
    const type = typeOf.get(configId);
    if (type === undefined) throw ApiError.withMessage('NOT_FOUND', `config with id or name ${configId} not found`);
    return type;
  });
}

/**
 * Sets each pair as the identity's override for the config's type on that service, replacing an earlier one of
 * that type. Two pairs of one type for one service in a request are refused: upstream refuses a repeated type
 * across the whole request (even for different services) with a 500; we refuse only the real conflict, with a 400.
 */
export async function assignOverrides(tx: Db, identityId: string, pairs: readonly ServiceConfigPair[], at: string): Promise<void> {
  if (pairs.length === 0) return;
  const types = await configTypesOf(tx, pairs);
  const seen = new Set<string>();
  pairs.forEach((pair, index) => {
    const key = `${pair.serviceId}\u0000${types[index]}`;
    if (seen.has(key)) {
      const reason = `multiple service configs provided for identity ${identityId} of config type ${types[index]}`;
      throw ApiError.invalidField('serviceConfigs', reason, pair.configId);
    }
    seen.add(key);
  });
  const rows = pairs.map((pair, index) => ({ identity_id: identityId, service_id: pair.serviceId, config_type_id: types[index], config_id: pair.configId }));
  await tx
    .insertInto('identity_service_configs')
    .values(rows)
    .onConflict((conflict) => conflict.columns(['identity_id', 'service_id', 'config_type_id']).doUpdateSet({ config_id: sql.ref('excluded.config_id') }))
    .execute();
  await touchServiceLists(tx, { identities: [identityId] }, at);
}

/** Removes exactly the given (service, config) pairs; no pairs at all removes every override of the identity. */
export async function removeOverrides(tx: Db, identityId: string, pairs: readonly ServiceConfigPair[], at: string): Promise<void> {
  const removal = tx.deleteFrom('identity_service_configs').where('identity_id', '=', identityId);
  if (pairs.length === 0) await removal.execute();
  else {
    await configTypesOf(tx, pairs);
    // One statement per pair: an OR of a thousand pairs passes SQLite's expression depth limit.
    for (const pair of pairs) await removal.where('service_id', '=', pair.serviceId).where('config_id', '=', pair.configId).execute();
  }
  await touchServiceLists(tx, { identities: [identityId] }, at);
}

/** The first override that uses a config, if any (a config in use by an override cannot be deleted). */
export async function overrideUsingConfig(db: Db, configId: string): Promise<{ identityId: string; serviceId: string } | undefined> {
  const row = await db
    .selectFrom('identity_service_configs')
    .select(['identity_id', 'service_id'])
    .where('config_id', '=', configId)
    .orderBy('identity_id')
    .orderBy('service_id')
    .executeTakeFirst();
  return row && { identityId: row.identity_id as string, serviceId: row.service_id as string };
}
