// The A service's stored fields, declared apart from its definition so that its rules read their types.
import { boolean, integer, roleAttributes, stringSet, text, type ValuesOf } from '../../crud/define-entity.js';

export const serviceFields = {
  name: text({ unique: true }),
  terminatorStrategy: text(),
  roleAttributes: roleAttributes(),
  // Config ids; the side table `service_configs` is the join, and makes `anyOf(configs)` an index lookup.
  configs: stringSet(),
  // Fixed at create, as upstream's PATCH strips it (ziti `model/edge_service_manager.go` `Update`).
  encryptionRequired: boolean({ filter: false, writable: 'create' }),
  maxIdleTimeMillis: integer({ filter: false, fallback: () => 0 }),
};

export type Service = ValuesOf<typeof serviceFields>;
