// Terminators: a service's exit from the overlay through a router, with cost and precedence for routing.
import { defineEntity, integer, text } from '../../crud/define-entity.js';
import { terminatorRules } from './terminator.rules.js';

export const terminator = defineEntity({
  type: 'terminator',
  path: 'terminators',
  table: 'terminators',
  idKind: 'base62',
  fields: {
    // Bodies name them `service` / `router`; responses show `serviceId` / `routerId` and references (extend).
    service: text({ column: 'service_id', writable: 'create', output: false }),
    router: text({ column: 'router_id', output: false }),
    binding: text(),
    address: text(),
    // Upstream stores the hosting identity's id as the instance id.
    identity: text({ column: 'instance_id', filter: 'instanceId', writable: 'create' }),
    // A secret: stored for the router that presents it, never rendered or filterable.
    identitySecret: text({ column: 'instance_secret', filter: false, output: false, writable: 'create' }),
    // Not filterable upstream: `cost = 0` there is an unknown symbol (asked of v1.1.8).
    cost: integer({ filter: false, fallback: () => 0 }),
    precedence: text({ filter: false, fallback: () => 'default' }),
    hostId: text({ output: false, writable: 'never' }),
  },
  symbols: {
    'service.name': { kind: 'column', type: 'string', column: 'name', via: { table: 'services', foreignKey: 'service_id' } },
    'router.name': { kind: 'column', type: 'string', column: 'name', via: { table: 'routers', foreignKey: 'router_id' } },
  },
  rules: terminatorRules,
});
