// Terminators: where a service's traffic leaves the overlay (a router, a binding and an address).
import type { Migration } from './migrate.js';
import { baseColumns as base } from './schema-parts.js';

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
