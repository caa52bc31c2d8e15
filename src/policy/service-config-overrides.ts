// Identity service-config overrides: for one identity and service, the config of a type to use instead of the
// service's own (ziti `db/identity_store.go` AssignServiceConfigs / RemoveServiceConfigs, `model` toBoltServiceConfigs).
import { ApiError } from '../errors/api-error.js';
import type { Db } from '../store/store.js';
import { configTypeIds, deleteOverrides, existingServices, upsertOverrides } from '../store/queries/configs.js';
import { touchServiceLists } from '../store/queries/service-lists.js';
import { mustAt } from '../lib/collections.js';

export interface ServiceConfigPair {
  serviceId: string;
  configId: string;
}

/** Each pair's service and config must exist (404, as upstream); returns each pair's config type. */
async function configTypesOf(tx: Db, pairs: readonly ServiceConfigPair[]): Promise<string[]> {
  const services = await existingServices(tx, [...new Set(pairs.map((pair) => pair.serviceId))]);
  const typeOf = await configTypeIds(tx, [...new Set(pairs.map((pair) => pair.configId))]);
  return pairs.map(({ serviceId, configId }) => {
    if (!services.has(serviceId))
      throw ApiError.withMessage('NOT_FOUND', `service with id or name ${serviceId} not found`);
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
export async function assignOverrides(
  tx: Db,
  identityId: string,
  pairs: readonly ServiceConfigPair[],
  at: string,
): Promise<void> {
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
  await upsertOverrides(
    tx,
    identityId,
    pairs.map((pair, index) => ({ ...pair, configTypeId: mustAt(types, index) })),
  );
  await touchServiceLists(tx, { identities: [identityId] }, at);
}

/** Removes exactly the given (service, config) pairs; no pairs at all removes every override of the identity. */
export async function removeOverrides(
  tx: Db,
  identityId: string,
  pairs: readonly ServiceConfigPair[],
  at: string,
): Promise<void> {
  if (pairs.length > 0) await configTypesOf(tx, pairs);
  await deleteOverrides(tx, identityId, pairs);
  await touchServiceLists(tx, { identities: [identityId] }, at);
}
