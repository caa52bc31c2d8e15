// Edge routers: routers that also serve SDK clients, carry role attributes and may host a tunneler.
import { boolean, defineEntity, integer, json, roleAttributes, text } from '../../crud/define-entity.js';
import { edgeRouterRules } from './edge-router.rules.js';

/**
 * Rows of the shared `routers` table with `is_edge` set (see migration 004). Live state (online, hostname,
 * versions) and the enrollment fields are computed by the rules.
 */
export const edgeRouter = defineEntity({
  // Edge and transit routers share upstream's router store, whose messages say "router with id … not found".
  type: 'router',
  path: 'edge-routers',
  table: 'routers',
  idKind: 'shortId',
  fields: {
    name: text({ unique: true }),
    // Kept from create only: upstream's update maps appData but its manager never writes it.
    appData: json({ writable: 'create' }),
    cost: integer({ fallback: () => 0 }),
    disabled: boolean(),
    noTraversal: boolean(),
    isTunnelerEnabled: boolean(),
    roleAttributes: roleAttributes(),
    isVerified: boolean({ writable: 'never' }),
    fingerprint: text({ unique: true, writable: 'never' }),
    certPem: text({ filter: false, writable: 'never' }),
    unverifiedFingerprint: text({ filter: false, writable: 'never' }),
    unverifiedCertPem: text({ filter: false, writable: 'never' }),
    isEdge: boolean({ filter: false, output: false, writable: 'never' }),
  },
  links: (entity) => ({ 'edge-router-policies': `./edge-routers/${String(entity.id)}/edge-router-policies` }),
  // Upstream's live-state symbols: both are whether an instance holds the router's control channel (migration 018).
  symbols: {
    connected: {
      kind: 'column',
      type: 'bool',
      column: 'instance_id',
      via: { existsIn: 'live_router_presence', ownerColumn: 'router_id' },
    },
    online: {
      kind: 'column',
      type: 'bool',
      column: 'instance_id',
      via: { existsIn: 'live_router_presence', ownerColumn: 'router_id' },
    },
  },
  rules: edgeRouterRules,
});
