// `/identities/{id}/service-configs`: an identity's per-service config overrides — list, set, remove (admin).
import { emptyEnvelope, envelope } from '../../http/envelope.js';
import type { OperationContext, OperationHandler, OperationTable } from '../../http/operation.js';
import { entityRef } from '../../crud/entity-mapping.js';
import { requireEntity } from '../../crud/entity-writes.js';
import { formatTimestamp } from '../../lib/clock.js';
import { assignOverrides, removeOverrides, type ServiceConfigPair } from '../../policy/service-config-overrides.js';
import { listOverrides } from '../../store/queries/configs.js';
import { config } from '../config/config.definition.js';
import { service } from '../service/service.definition.js';
import { identity } from './identity.definition.js';

/** The body as validated by the contract: a list of `{serviceId, configId}`, or nothing (DELETE only). */
const pairsOf = (context: OperationContext) => ((context.body ?? []) as ServiceConfigPair[]).map(({ serviceId, configId }) => ({ serviceId, configId }));

/**
 * Not a paged list upstream: every override at once, with `pagination` describing exactly that and no
 * filterable fields (ziti `routes/identity_router.go` listServiceConfigs).
 */
const listIdentitysServiceConfigs: OperationHandler = {
  access: 'admin',
  async handle({ deps, params }) {
    const rows = await deps.store.read(async (db) => {
      await requireEntity(db, identity, params.id as string);
      return listOverrides(db, params.id as string);
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

function changeOverrides(write: typeof assignOverrides): OperationHandler {
  return {
    access: 'admin',
    async handle(context) {
      const { deps, params } = context;
      await deps.store.transaction(async (tx) => {
        await requireEntity(tx, identity, params.id as string);
        await write(tx, params.id as string, pairsOf(context), formatTimestamp(deps.clock()));
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
