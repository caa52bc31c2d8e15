// Routers (transit and edge in one table), their role attributes, and edge router policies, which tunneler-enabled
// edge routers need for their system policy.
import type { Migration } from './migrate.js';
import { baseColumns as base, setTable } from './schema-parts.js';

/**
 * One `routers` table rather than `routers` plus an `edge_routers` extension: upstream's edge router is a router
 * with extra fields, every router shares one name index, and `/routers` lists edge routers too — so a single row
 * with an `is_edge` flag keeps the unique name a plain constraint and lets each entity definition read one table.
 * The edge columns stay NULL / 0 on transit routers. Enrollments (a later issue) reference `routers(id)`.
 */
export const routersSchema: Migration = {
  version: 4,
  name: 'routers and edge router policies',
  statements: [
    `CREATE TABLE routers (${base},
      name TEXT NOT NULL UNIQUE,
      is_edge INTEGER NOT NULL DEFAULT 0,
      cost INTEGER NOT NULL DEFAULT 0,
      no_traversal INTEGER NOT NULL DEFAULT 0,
      disabled INTEGER NOT NULL DEFAULT 0,
      is_verified INTEGER NOT NULL DEFAULT 0,
      fingerprint TEXT UNIQUE,
      cert_pem TEXT,
      unverified_fingerprint TEXT UNIQUE,
      unverified_cert_pem TEXT,
      role_attributes TEXT,
      is_tunneler_enabled INTEGER NOT NULL DEFAULT 0,
      app_data TEXT)`,
    `CREATE INDEX routers_is_edge ON routers(is_edge, id)`,
    ...setTable('router_role_attributes', 'routers'),
    // Readers that want only edge routers (the summary's `routers.edge`, policy evaluation) use this view.
    // PostgreSQL expands `*` when the view is created: a migration that changes routers' columns recreates it.
    `CREATE VIEW edge_routers AS SELECT * FROM routers WHERE is_edge = 1`,

    // Role lists are JSON text of sorted arrays; the side tables make `anyOf(identityRoles)` filters indexed.
    `CREATE TABLE edge_router_policies (${base},
      name TEXT NOT NULL UNIQUE,
      semantic TEXT NOT NULL DEFAULT 'AllOf',
      identity_roles TEXT,
      edge_router_roles TEXT)`,
    ...setTable('edge_router_policy_identity_roles', 'edge_router_policies'),
    ...setTable('edge_router_policy_edge_router_roles', 'edge_router_policies'),
  ],
};
