// Circuits every process and instance can list (docs/reference/router-control-plane-links.md §5.8): each circuit
// while it lives, written behind its dial by the process that owns it (src/fabric/circuits/circuit-records.ts), with
// what `/fabric/v1/circuits` shows (path, tags, times as RFC3339 text; path and tags as JSON) and its owner. It takes
// over `fabric_circuit_owners` (migration 021), which held only the owners of circuits spanning processes: the owner
// of any circuit is now its row's `instance_id`. Rows of instances that stopped beating are swept.
import type { Migration } from './migrate.js';

export const fabricCircuits: Migration = {
  version: 22,
  name: 'fabric circuits',
  statements: [
    `CREATE TABLE fabric_circuits (
      id TEXT PRIMARY KEY NOT NULL,
      instance_id TEXT NOT NULL,
      client_id TEXT NOT NULL,
      session_id TEXT,
      service_id TEXT NOT NULL,
      terminator_id TEXT NOT NULL,
      tags TEXT NOT NULL,
      router_ids TEXT NOT NULL,
      link_ids TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL)`,
    `CREATE INDEX fabric_circuits_instance ON fabric_circuits(instance_id)`,
    `CREATE INDEX fabric_circuits_session ON fabric_circuits(session_id)`,
    `DROP TABLE fabric_circuit_owners`,
  ],
};
