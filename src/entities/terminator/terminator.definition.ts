// Terminators: a service's exit from the overlay through a router, with cost and precedence for routing.
import { defineEntity } from '../../crud/define-entity.js';
import { terminatorFields } from './terminator.fields.js';
import { terminatorRules } from './terminator.rules.js';

export const terminator = defineEntity({
  type: 'terminator',
  path: 'terminators',
  table: 'terminators',
  idKind: 'base62',
  fields: terminatorFields,
  symbols: {
    'service.name': {
      kind: 'column',
      type: 'string',
      column: 'name',
      via: { table: 'services', foreignKey: 'service_id' },
    },
    'router.name': {
      kind: 'column',
      type: 'string',
      column: 'name',
      via: { table: 'routers', foreignKey: 'router_id' },
    },
  },
  rules: terminatorRules,
  // A terminator's rules check only that its service and router exist (changed by strict writes alone), and nothing
  // but its own row is written: 50k terminators are created side by side, each commit sharing WAL flushes (issue 33).
  ownRowWrites: true,
});
