// The A terminator's stored fields, declared apart from its definition so that its rules read their types.
import { integer, text, type ValuesOf } from '../../crud/define-entity.js';

export const terminatorFields = {
  // Bodies name them `service` / `router`; responses show `serviceId` / `routerId` and references (extend).
  service: text({ column: 'service_id', writable: 'create', output: false, required: true }),
  router: text({ column: 'router_id', output: false, required: true }),
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
};

export type Terminator = ValuesOf<typeof terminatorFields>;
