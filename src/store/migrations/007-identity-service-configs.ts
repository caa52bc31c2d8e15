// Identity service-config overrides: per identity and service, the config to use for one config type instead of
// the service's own.
import type { Migration } from './migrate.js';

export const identityServiceConfigsSchema: Migration = {
  version: 7,
  name: 'identity service-config overrides',
  statements: [
    // The config's type is kept beside it (a config's type never changes), so "one override per config type for
    // an (identity, service)" is the primary key. The config reference has no cascade: deleting a config an
    // override uses is refused (config rules say so first; the database is the backstop).
    `CREATE TABLE identity_service_configs (
      identity_id TEXT NOT NULL REFERENCES identities(id) ON DELETE CASCADE,
      service_id TEXT NOT NULL REFERENCES services(id) ON DELETE CASCADE,
      config_type_id TEXT NOT NULL REFERENCES config_types(id),
      config_id TEXT NOT NULL REFERENCES configs(id),
      PRIMARY KEY (identity_id, service_id, config_type_id)) WITHOUT ROWID`,
    `CREATE INDEX identity_service_configs_config ON identity_service_configs(config_id, identity_id)`,
    `CREATE INDEX identity_service_configs_service ON identity_service_configs(service_id)`,
  ],
};
