// Transit routers as a lookup target, so an enrollment's `transitRouter` filter symbol matches only those.
import type { Migration } from './migrate.js';

/**
 * Edge and transit routers share `routers` (migration 004) and enrollments one `router_id` column (008); the
 * `edgeRouter` symbol looks up through the `edge_routers` view and `transitRouter` through this one. Only the id
 * is selected, so later changes to `routers` need not recreate it.
 */
export const enrollmentLookups: Migration = {
  version: 9,
  name: 'transit router lookup for enrollment filters',
  statements: [`CREATE VIEW transit_router_ids AS SELECT id FROM routers WHERE is_edge = 0`],
};
