// Routers as `/routers` and `/transit-routers` see them: every router, edge routers included (read-only there).
import { boolean, defineEntity, integer, text } from '../../crud/define-entity.js';
import { routerRules } from './router.rules.js';

/**
 * Upstream serves both paths from one transit-router handler set, so links and create replies name
 * `transit-routers` whichever path was called (`routes/transit_router_api_model.go` TransitRouterLinkFactory).
 */
export const router = defineEntity({
  type: 'router',
  path: 'transit-routers',
  table: 'routers',
  duplicateName: 'index',
  idKind: 'shortId',
  fields: {
    name: text({ unique: true }),
    cost: integer({ fallback: () => 0 }),
    disabled: boolean(),
    noTraversal: boolean(),
    fingerprint: text({ unique: true, writable: 'never' }),
    isVerified: boolean({ filter: false, writable: 'never' }),
    unverifiedFingerprint: text({ filter: false, writable: 'never' }),
    unverifiedCertPem: text({ filter: false, writable: 'never' }),
    // Edge routers share the table; through these paths they are listed but not changed.
    isEdge: boolean({ filter: false, output: false, writable: 'never' }),
  },
  rules: routerRules,
});
