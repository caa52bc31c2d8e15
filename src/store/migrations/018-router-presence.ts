// Router presence (issue 22): which controller instance holds each router's control channel, and what the router
// reported over it (versions and link listeners from its hello; hostname, protocols and sync status from the edge sync). Online means a row whose instance_id is set; every instance reads it (REST never asks a channel)
// and the instances' heartbeat sweep clears instance_id of rows held by an instance that stopped beating. A row
// outlives its connection, as upstream's router state does, so hostname, protocols and versions stay visible after a
// disconnect; it goes with its router.
import type { Migration } from './migrate.js';

export const routerPresence: Migration = {
  version: 18,
  name: 'router presence',
  statements: [
    `CREATE TABLE router_presence (
      router_id TEXT PRIMARY KEY NOT NULL REFERENCES routers(id) ON DELETE CASCADE,
      instance_id TEXT,
      connected_at TEXT,
      version_info TEXT,
      link_listeners TEXT,
      hostname TEXT,
      supported_protocols TEXT,
      sync_status TEXT)`,
    `CREATE INDEX router_presence_instance ON router_presence(instance_id)`,
  ],
};
