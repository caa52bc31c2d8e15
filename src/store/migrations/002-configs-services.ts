// Config types, configs and services, with the five built-in config types upstream creates in its initial
// migration (their schemas are data, in migrations/data/built-in-config-types.json: a shipped migration's data never changes).
import { readFileSync } from 'node:fs';
import type { Migration } from './migrate.js';
import { baseColumns as base, setTable } from './schema-parts.js';

const epoch = '2020-01-01T00:00:00.000Z';

interface BuiltInConfigType {
  id: string;
  name: string;
  schema: Record<string, unknown>;
}

// A data file committed beside this migration, in this shape (JSON.parse answers `any`).
const builtInConfigTypes = JSON.parse(
  readFileSync(new URL('./data/built-in-config-types.json', import.meta.url), 'utf8'),
) as BuiltInConfigType[];

const quote = (text: string) => `'${text.replaceAll("'", "''")}'`;

export const configsAndServices: Migration = {
  version: 2,
  name: 'config types, configs and services',
  statements: [
    `CREATE TABLE config_types (${base},
      name TEXT NOT NULL UNIQUE,
      schema TEXT)`,
    ...builtInConfigTypes.map(
      ({ id, name, schema }) =>
        `INSERT INTO config_types (id, created_at, updated_at, name, schema)
          VALUES (${quote(id)}, '${epoch}', '${epoch}', ${quote(name)}, ${quote(JSON.stringify(schema))})`,
    ),

    `CREATE TABLE configs (${base},
      name TEXT NOT NULL UNIQUE,
      config_type_id TEXT NOT NULL REFERENCES config_types(id),
      data TEXT NOT NULL)`,
    `CREATE INDEX configs_config_type ON configs(config_type_id)`,

    `CREATE TABLE services (${base},
      name TEXT NOT NULL UNIQUE,
      terminator_strategy TEXT NOT NULL,
      role_attributes TEXT,
      configs TEXT,
      encryption_required INTEGER NOT NULL,
      max_idle_time_millis INTEGER NOT NULL DEFAULT 0)`,
    ...setTable('service_role_attributes', 'services'),
    // The service ↔ config join: one row per attached config, indexed both ways (by service in the key).
    ...setTable('service_configs', 'services', 'configs'),
  ],
};
