// The controllers' filter symbols: where each filterable field is found in a controller's row.
import type { SymbolTable } from '../store/filter/filter-types.js';

/** Upstream's public symbols for controllers (its filterableFields). */
export const controllerSymbols: SymbolTable = {
  id: { kind: 'column', type: 'string', column: 'id' },
  name: { kind: 'column', type: 'string', column: 'name' },
  ctrlAddress: { kind: 'column', type: 'string', column: 'ctrl_address' },
  certPem: { kind: 'column', type: 'string', column: 'cert_pem' },
  fingerprint: { kind: 'column', type: 'string', column: 'fingerprint' },
  isOnline: { kind: 'column', type: 'bool', column: 'is_online' },
  lastJoinedAt: { kind: 'column', type: 'datetime', column: 'last_joined_at' },
  createdAt: { kind: 'column', type: 'datetime', column: 'created_at' },
  updatedAt: { kind: 'column', type: 'datetime', column: 'updated_at' },
  tags: { kind: 'map', column: 'tags' },
  isSystem: { kind: 'column', type: 'bool', column: 'is_system' },
};
