// Config rules: the type must exist, data must satisfy the type's schema, no delete while still in use.
import { ApiError } from '../../errors/api-error.js';
import { entityRef } from '../../crud/entity-mapping.js';
import type { EntityRules } from '../../crud/entity-rules.js';
import type { Config } from './config.fields.js';
import { goValue } from '../../lib/go-format.js';
import { isJsonObject } from '../../lib/object-path.js';
import type { Db } from '../../store/store.js';
import { configType } from '../config-type/config-type.definition.js';
import { configDataCheck, withSortedKeys } from '../shared/config-type-schema.js';
import { formatTimestamp } from '../../lib/clock.js';
import { touchServiceLists } from '../../store/queries/service-lists.js';
import {
  configTypeNames,
  configTypeSchema,
  overrideUsingConfig,
  servicesUsingConfig,
} from '../../store/queries/configs.js';

/** The schema of a config's type (null when it has none); field `type` and these reasons are upstream's. */
async function requireConfigTypeSchema(db: Db, id: unknown): Promise<Record<string, unknown> | null> {
  if (typeof id !== 'string' || id === '') throw ApiError.invalidField('type', 'config type must be specified', id);
  const schema = await configTypeSchema(db, id);
  if (schema === undefined) throw ApiError.invalidField('type', 'invalid config type', id);
  return schema ? (JSON.parse(schema) as Record<string, unknown>) : null;
}

/**
 * `data` (an object, checked first) must satisfy the type's schema, if it has one; the
 * first violation is the cause, as upstream reports gojsonschema's first error.
 */
function checkedData(data: unknown, schema: Record<string, unknown> | null): unknown {
  if (schema && Object.keys(schema).length > 0) {
    const violation = configDataCheck(schema)(data);
    if (violation)
      throw ApiError.invalidField(
        violation.field,
        `${violation.field} is invalid: ${violation.message}`,
        violation.value,
      );
  }
  return withSortedKeys(data);
}

/**
 * Refuses to delete a config something still uses: a service it is attached to, or an identity's service-config
 * override (upstream refuses the latter with a plain error, so a 500 "config is in use by identity …"; we answer
 * the 409 the contract declares, with upstream's words).
 */
export async function refuseDeleteWhileConfigInUse(tx: Db, configId: string): Promise<void> {
  const services = await servicesUsingConfig(tx, configId);
  if (services.length > 0) {
    const ids = goValue(services);
    const reason = `entity type config referenced by services: ${ids}`;
    throw new ApiError('CAN_NOT_DELETE_REFERENCED_ENTITY', { field: 'configs', reason, value: ids });
  }
  const override = await overrideUsingConfig(tx, configId);
  if (override) {
    const message = `config is in use by identity ${override.identityId} for service ${override.serviceId}`;
    throw ApiError.withMessage('CAN_NOT_DELETE_REFERENCED_ENTITY', message);
  }
}

export const configRules: EntityRules<Config> = {
  async validate({ tx }, change) {
    const after = change.after;
    // The contract takes any JSON value here (Go's interface{}); upstream's mapper wants an object.
    if (change.changed.has('data') && !isJsonObject(after.data))
      throw ApiError.invalidField('data', 'invalid type, expected object', after.data);
    // configTypeId is written at create only, so on PUT and PATCH this is the stored type.
    const schema = await requireConfigTypeSchema(tx, after.configTypeId);
    if (change.changed.has('data')) after.data = checkedData(after.data, schema);
  },

  /** Identities that see a service using this config, or use it as an override, see new data: their lists changed. */
  async afterWrite({ tx, deps }, change) {
    if (change.op !== 'update' && change.op !== 'patch') return;
    await touchServiceLists(tx, { usersOfConfig: change.id }, formatTimestamp(deps.clock()));
  },

  /** Upstream detaches the config from its services; deleting what a service still uses is refused instead. */
  beforeDelete({ tx }, existing) {
    return refuseDeleteWhileConfigInUse(tx, existing.id);
  },

  async extend({ db }, configs) {
    const typeIds = [...new Set(configs.map((c) => c.configTypeId))];
    if (typeIds.length === 0) return [];
    const names = await configTypeNames(db, typeIds);
    return configs.map((entity) => {
      const typeId = entity.configTypeId;
      return {
        configType: entityRef(configType, { id: typeId, name: names.get(typeId) ?? '' }),
        data: entity.data ?? {},
      };
    });
  },
};
