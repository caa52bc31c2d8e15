// Terminators: where a service's traffic leaves the overlay (a router, a binding and an address).
import type { Migration } from './migrate.js';

const base = `id TEXT PRIMARY KEY NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  tags TEXT NOT NULL DEFAULT '{}',
  is_system INTEGER NOT NULL DEFAULT 0`;

export const terminatorsSchema: Migration = {
  version: 5,
  name: 'terminators',
  statements: [
    `CREATE TABLE terminators (${base},
      service_id TEXT NOT NULL REFERENCES services(id) ON DELETE CASCADE,
      router_id TEXT NOT NULL REFERENCES routers(id) ON DELETE CASCADE,
      binding TEXT NOT NULL,
      address TEXT NOT NULL,
      instance_id TEXT,
      instance_secret TEXT,
      cost INTEGER NOT NULL DEFAULT 0,
      precedence TEXT NOT NULL DEFAULT 'default',
      host_id TEXT)`,
    `CREATE INDEX terminators_service ON terminators(service_id)`,
    `CREATE INDEX terminators_router ON terminators(router_id)`,
  ],
};
