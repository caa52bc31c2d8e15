// Service policies and service edge router policies, and the links every policy kind maintains: which entities
// each policy selects (membership), and how many policies join each identity–service, identity–edge router and
// service–edge router pair (reference-counted), so "what may this identity use" is a lookup, never a re-evaluation.
import type { Migration } from './migrate.js';
import { baseColumns as base, setTable } from './schema-parts.js';

/** Which entities a policy selects on one side; indexed both ways (a policy's members, an entity's policies). */
const membership = (table: string, policies: string, entities: string) => [
  `CREATE TABLE ${table} (
    policy_id TEXT NOT NULL REFERENCES ${policies}(id) ON DELETE CASCADE,
    entity_id TEXT NOT NULL REFERENCES ${entities}(id) ON DELETE CASCADE,
    PRIMARY KEY (policy_id, entity_id)) WITHOUT ROWID`,
  `CREATE INDEX ${table}_entity ON ${table}(entity_id, policy_id)`,
];

export const policiesSchema: Migration = {
  version: 6,
  name: 'policies and their links',
  statements: [
    // `type` is stored as upstream stores it and filters it: 1 = Dial, 2 = Bind.
    `CREATE TABLE service_policies (${base},
      name TEXT NOT NULL UNIQUE,
      type INTEGER NOT NULL,
      semantic TEXT NOT NULL DEFAULT 'AllOf',
      identity_roles TEXT,
      service_roles TEXT,
      posture_check_roles TEXT)`,
    ...setTable('service_policy_identity_roles', 'service_policies'),
    ...setTable('service_policy_service_roles', 'service_policies'),
    ...setTable('service_policy_posture_check_roles', 'service_policies'),

    `CREATE TABLE service_edge_router_policies (${base},
      name TEXT NOT NULL UNIQUE,
      semantic TEXT NOT NULL DEFAULT 'AllOf',
      service_roles TEXT,
      edge_router_roles TEXT)`,
    ...setTable('service_edge_router_policy_service_roles', 'service_edge_router_policies'),
    ...setTable('service_edge_router_policy_edge_router_roles', 'service_edge_router_policies'),

    ...membership('service_policy_identities', 'service_policies', 'identities'),
    ...membership('service_policy_services', 'service_policies', 'services'),
    ...membership('service_policy_posture_checks', 'service_policies', 'posture_checks'),
    ...membership('edge_router_policy_identities', 'edge_router_policies', 'identities'),
    ...membership('edge_router_policy_edge_routers', 'edge_router_policies', 'routers'),
    ...membership('service_edge_router_policy_services', 'service_edge_router_policies', 'services'),
    ...membership('service_edge_router_policy_edge_routers', 'service_edge_router_policies', 'routers'),

    // Pair tables: a row exists while at least one policy joins the pair; the counts say how many.
    `CREATE TABLE identity_services (
      identity_id TEXT NOT NULL REFERENCES identities(id) ON DELETE CASCADE,
      service_id TEXT NOT NULL REFERENCES services(id) ON DELETE CASCADE,
      dial INTEGER NOT NULL DEFAULT 0,
      bind INTEGER NOT NULL DEFAULT 0,
      PRIMARY KEY (identity_id, service_id)) WITHOUT ROWID`,
    `CREATE INDEX identity_services_service ON identity_services(service_id, identity_id)`,
    `CREATE TABLE identity_edge_routers (
      identity_id TEXT NOT NULL REFERENCES identities(id) ON DELETE CASCADE,
      edge_router_id TEXT NOT NULL REFERENCES routers(id) ON DELETE CASCADE,
      count INTEGER NOT NULL DEFAULT 0,
      PRIMARY KEY (identity_id, edge_router_id)) WITHOUT ROWID`,
    `CREATE INDEX identity_edge_routers_router ON identity_edge_routers(edge_router_id, identity_id)`,
    `CREATE TABLE service_edge_routers (
      service_id TEXT NOT NULL REFERENCES services(id) ON DELETE CASCADE,
      edge_router_id TEXT NOT NULL REFERENCES routers(id) ON DELETE CASCADE,
      count INTEGER NOT NULL DEFAULT 0,
      PRIMARY KEY (service_id, edge_router_id)) WITHOUT ROWID`,
    `CREATE INDEX service_edge_routers_router ON service_edge_routers(edge_router_id, service_id)`,

    // When anything an identity's service list depends on last changed (service-updates polling reads this).
    `CREATE TABLE identity_service_updates (
      identity_id TEXT PRIMARY KEY NOT NULL REFERENCES identities(id) ON DELETE CASCADE,
      changed_at TEXT NOT NULL) WITHOUT ROWID`,

    // Deltas computed while one policy or entity is re-evaluated; emptied before each use.
    `CREATE TABLE policy_delta (kind TEXT NOT NULL, entity_id TEXT NOT NULL, PRIMARY KEY (kind, entity_id)) WITHOUT ROWID`,
  ],
};
