// Routing across processes and instances (issue 24, docs/reference/router-control-plane-links.md §5.8). Each router's
// channel is held by one process; what the others need of it goes through the store:
// - fabric_links: the links routers report, written by the process holding the reporting router (or the one a fault
//   reached), read by every process as its path snapshot. Only usable links are kept: a faulted link is deleted.
// - router_inbox: control messages (Route, Unroute, Fault) for a router held by another process, addressed to that
//   process (instance_id); the holder sends each on the router's channel and, when a reply is awaited, writes it back
//   into the row, where the sender reads it. Rows are removed by their sender, or swept when either side is dead.
// - fabric_circuit_owners: circuits whose path includes a router held elsewhere, with the process that owns them, so a
//   router's holder does not unroute a circuit it does not know (a CircuitConfirmation) when another process owns it.
import type { Migration } from './migrate.js';

export const fabricLinksAndInbox: Migration = {
  version: 21,
  name: 'fabric links, router inbox and circuit owners',
  statements: [
    `CREATE TABLE fabric_links (
      id TEXT PRIMARY KEY NOT NULL,
      iteration INTEGER NOT NULL,
      src_router_id TEXT NOT NULL REFERENCES routers(id) ON DELETE CASCADE,
      dst_router_id TEXT NOT NULL,
      protocol TEXT NOT NULL,
      dial_address TEXT NOT NULL,
      down INTEGER NOT NULL DEFAULT 0,
      static_cost INTEGER NOT NULL DEFAULT 1,
      src_latency INTEGER NOT NULL,
      dst_latency INTEGER NOT NULL)`,
    `CREATE INDEX fabric_links_src ON fabric_links(src_router_id)`,
    `CREATE INDEX fabric_links_dst ON fabric_links(dst_router_id)`,
    `CREATE TABLE router_inbox (
      id TEXT PRIMARY KEY NOT NULL,
      instance_id TEXT NOT NULL,
      sender_instance_id TEXT NOT NULL,
      router_id TEXT NOT NULL,
      message TEXT NOT NULL,
      timeout_ms INTEGER NOT NULL,
      state TEXT NOT NULL,
      reply TEXT,
      created_at TEXT NOT NULL)`,
    `CREATE INDEX router_inbox_instance_state ON router_inbox(instance_id, state)`,
    `CREATE TABLE fabric_circuit_owners (id TEXT PRIMARY KEY NOT NULL, instance_id TEXT NOT NULL)`,
    `CREATE INDEX fabric_circuit_owners_instance ON fabric_circuit_owners(instance_id)`,
  ],
};
