// Terminator rules: the service and router exist, an address is given, binding and precedence get defaults.
import { ApiError } from '../../errors/api-error.js';
import type { EntityRules } from '../../crud/entity-rules.js';
import { named, namesOf, rowsExist } from '../../store/queries/references.js';
import { entityRef } from '../../crud/entity-mapping.js';
import { service } from '../service/service.definition.js';
import { router } from '../router/router.definition.js';
import type { Terminator } from './terminator.fields.js';

export const terminatorRules: EntityRules<Terminator> = {
  async validate({ tx }, change) {
    const after = change.after;
    // Looked up in one statement; refused in upstream's order, the service first.
    const references = [
      ...(change.op === 'create' ? [{ field: 'service', table: named.service, value: after.service }] : []),
      ...(change.op === 'create' || change.changed.has('router')
        ? [{ field: 'router', table: named.router, value: after.router }]
        : []),
    ];
    const found = await rowsExist(
      tx,
      references.map(({ table, value }) => ({ table, id: String(value) })),
    );
    for (const [index, { field, value }] of references.entries())
      if (found[index] !== true) throw ApiError.invalidField(field, `no ${field} found with the given id`, value);
    if (!after.address) throw ApiError.invalidField('address', 'address is required', after.address);
    // ziti controller/model/terminator_manager.go: an empty binding is derived from the address.
    if (!after.binding) after.binding = after.address.startsWith('udp:') ? 'udp' : 'transport';
    if (!after.precedence) after.precedence = 'default';
    if (change.body.identitySecret !== undefined && change.body.identitySecret !== null) {
      if (
        typeof change.body.identitySecret !== 'string' ||
        !/^[A-Za-z0-9+/]*={0,2}$/.test(change.body.identitySecret)
      ) {
        throw ApiError.invalidField('identitySecret', 'identitySecret must be base64', '******');
      }
    }
  },

  async extend({ db }, terminators) {
    const serviceIds = [...new Set(terminators.map((t) => t.service))];
    const routerIds = [...new Set(terminators.map((t) => t.router))];
    const [serviceNames, routerNames] = await Promise.all([
      namesOf(db, named.service, serviceIds),
      namesOf(db, named.router, routerIds),
    ]);
    return terminators.map((terminator) => {
      const { service: serviceId, router: routerId } = terminator;
      return {
        serviceId,
        service: entityRef(service, { id: serviceId, name: serviceNames.get(serviceId) ?? '' }),
        routerId,
        router: entityRef(router, { id: routerId, name: routerNames.get(routerId) ?? '' }),
        identity: terminator.identity ?? '',
        // No router reports load here (no control channel), so the dynamic cost is always 0.
        dynamicCost: 0,
      };
    });
  },
};
