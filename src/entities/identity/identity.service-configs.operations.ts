// `/identities/{id}/service-configs`: an identity's per-service config overrides — list, set, remove (admin).
import { emptyEnvelope, envelope } from '../../http/envelope.js';
import type { OperationHandler, OperationTable } from '../../http/operation.js';
import { entityRef } from '../../crud/entity-mapping.js';
import { requireEntity } from '../../crud/entity-writes.js';
import { formatTimestamp } from '../../lib/clock.js';
import { assignOverrides, removeOverrides } from '../../policy/service-config-overrides.js';
import { listOverrides } from '../../store/queries/configs.js';
import { config } from '../config/config.definition.js';
import { service } from '../service/service.definition.js';
import { identity } from './identity.definition.js';

/**
 * Not a paged list upstream: every override at once, with `pagination` describing exactly that and no
 * filterable fields (ziti `routes/identity_router.go` listServiceConfigs).
 */
const listIdentitysServiceConfigs: OperationHandler<'listIdentitysServiceConfigs'> = {
  access: 'admin',
  async handle({ deps, params: { id } }) {
    const rows = await deps.store.read(async (db) => {
      await requireEntity(db, identity, id);
      return listOverrides(db, id);
    });
    const data = rows.map((row) => ({
      config: entityRef(config, { id: row.configId, name: row.configName }),
      configId: row.configId,
      service: entityRef(service, { id: row.serviceId, name: row.serviceName }),
      serviceId: row.serviceId,
    }));
    const pagination = { limit: data.length, offset: 0, totalCount: data.length };
    return { status: 200, json: envelope(data, { pagination }) };
  },
};

/** The body is a list of `{serviceId, configId}`, or nothing (DELETE only). */
function changeOverrides(write: typeof assignOverrides): OperationHandler<'disassociateIdentitysServiceConfigs'> {
  return {
    access: 'admin',
    async handle({ deps, params: { id }, body = [] }) {
      const pairs = body.map(({ serviceId, configId }) => ({ serviceId, configId }));
      await deps.store.transaction(async (tx) => {
        await requireEntity(tx, identity, id);
        await write(tx, id, pairs, formatTimestamp(deps.clock()));
      });
      return { status: 200, json: emptyEnvelope() };
    },
  };
}

export const identityServiceConfigOperations: OperationTable<'management'> = {
  listIdentitysServiceConfigs,
  associateIdentitysServiceConfigs: changeOverrides(assignOverrides),
  // An empty or absent body removes every override, as upstream's RemoveServiceConfigs does.
  disassociateIdentitysServiceConfigs: changeOverrides(removeOverrides),
};
