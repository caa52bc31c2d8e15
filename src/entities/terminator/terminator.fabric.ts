// Terminators as the fabric API shows them (`/fabric/v1/terminators`): the edge view's table and filter symbols,
// with the fabric fields (upstream `api_impl/terminator_api_model.go` MapTerminatorToRestModel).
import { defineEntity, integer, text, type ValuesOf } from '../../crud/define-entity.js';
import { entityRef } from '../../crud/entity-mapping.js';
import { named, namesOf } from '../../store/queries/references.js';
import { fabricRouter } from '../router/router.fabric.js';
import { fabricService } from '../service/service.fabric.js';
import { terminator } from './terminator.definition.js';

const fabricTerminatorFields = {
  service: text({ column: 'service_id', output: false, required: true }),
  router: text({ column: 'router_id', output: false, required: true }),
  binding: text(),
  address: text(),
  instanceId: text(),
  // Not filterable upstream, as in the edge view.
  cost: integer({ filter: false, fallback: () => 0 }),
  precedence: text({ filter: false, fallback: () => 'default' }),
  hostId: text(),
};

export const fabricTerminator = defineEntity({
  type: 'terminator',
  path: 'terminators',
  table: 'terminators',
  idKind: 'base62',
  fields: fabricTerminatorFields,
  // The same store upstream, so the same public symbols as the edge view (`service.name`, `router.name`).
  symbols: terminator.symbols,
  rules: {
    async extend({ db }, terminators: readonly ValuesOf<typeof fabricTerminatorFields>[]) {
      const serviceIds = [...new Set(terminators.map((t) => t.service))];
      const routerIds = [...new Set(terminators.map((t) => t.router))];
      const [serviceNames, routerNames] = await Promise.all([
        namesOf(db, named.service, serviceIds),
        namesOf(db, named.router, routerIds),
      ]);
      return terminators.map((row) => {
        const { service: serviceId, router: routerId } = row;
        return {
          // Plain strings upstream: an unset one reads "".
          instanceId: row.instanceId ?? '',
          hostId: row.hostId ?? '',
          serviceId,
          service: entityRef(fabricService, { id: serviceId, name: serviceNames.get(serviceId) ?? '' }),
          routerId,
          router: entityRef(fabricRouter, { id: routerId, name: routerNames.get(routerId) ?? '' }),
          // No router reports load yet, so the dynamic cost (xt.GlobalCosts) is 0, as in the edge view.
          dynamicCost: 0,
        };
      });
    },
  },
});
