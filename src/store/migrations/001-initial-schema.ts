// The first schema: identity types, auth policies, identities with their role attributes, authenticators and
// API sessions, with the bootstrap rows upstream creates in its initial migration.
import type { Migration } from './migrate.js';
import { baseColumns as base, setTable } from './schema-parts.js';

const epoch = '2020-01-01T00:00:00.000Z';

export const initialSchema: Migration = {
  version: 1,
  name: 'initial schema',
  statements: [
    `CREATE TABLE identity_types (${base}, name TEXT NOT NULL UNIQUE)`,
    `INSERT INTO identity_types (id, created_at, updated_at, is_system, name) VALUES
      ('Default', '${epoch}', '${epoch}', 1, 'Default'),
      ('Router', '${epoch}', '${epoch}', 1, 'Router')`,

    `CREATE TABLE auth_policies (${base},
      name TEXT NOT NULL UNIQUE,
      primary_cert_allowed INTEGER NOT NULL,
      primary_cert_allow_expired_certs INTEGER NOT NULL,
      primary_updb_allowed INTEGER NOT NULL,
      primary_updb_min_password_length INTEGER NOT NULL,
      primary_updb_require_special_char INTEGER NOT NULL,
      primary_updb_require_number_char INTEGER NOT NULL,
      primary_updb_require_mixed_case INTEGER NOT NULL,
      primary_updb_max_attempts INTEGER NOT NULL,
      primary_updb_lockout_duration_minutes INTEGER NOT NULL,
      primary_ext_jwt_allowed INTEGER NOT NULL,
      primary_ext_jwt_allowed_signers TEXT,
      secondary_require_totp INTEGER NOT NULL,
      secondary_require_ext_jwt_signer TEXT)`,
    // The default policy as upstream's migration_v14 creates it (docs/reference/pki-enrollment-auth.md §7.2).
    `INSERT INTO auth_policies VALUES ('default', '${epoch}', '${epoch}', '{}', 1, 'Default',
      1, 1, 1, 5, 0, 0, 0, 0, 0, 1, NULL, 0, NULL)`,

    `CREATE TABLE identities (${base},
      name TEXT NOT NULL UNIQUE,
      type_id TEXT NOT NULL REFERENCES identity_types(id),
      is_admin INTEGER NOT NULL DEFAULT 0,
      is_default_admin INTEGER NOT NULL DEFAULT 0,
      role_attributes TEXT,
      external_id TEXT UNIQUE,
      auth_policy_id TEXT NOT NULL DEFAULT 'default' REFERENCES auth_policies(id),
      app_data TEXT,
      default_hosting_cost INTEGER NOT NULL DEFAULT 0,
      default_hosting_precedence TEXT NOT NULL DEFAULT 'default',
      service_hosting_costs TEXT,
      service_hosting_precedences TEXT,
      disabled_at TEXT,
      disabled_until TEXT,
      env_info TEXT,
      sdk_info TEXT)`,
    ...setTable('identity_role_attributes', 'identities'),
    `CREATE INDEX identities_type ON identities(type_id)`,
    `CREATE INDEX identities_auth_policy ON identities(auth_policy_id)`,

    `CREATE TABLE authenticators (${base},
      identity_id TEXT NOT NULL REFERENCES identities(id) ON DELETE CASCADE,
      method TEXT NOT NULL,
      username TEXT UNIQUE,
      password_hash TEXT,
      password_salt TEXT,
      cert_fingerprint TEXT UNIQUE,
      cert_pem TEXT)`,
    `CREATE INDEX authenticators_identity ON authenticators(identity_id)`,

    `CREATE TABLE api_sessions (${base},
      token TEXT NOT NULL UNIQUE,
      identity_id TEXT NOT NULL REFERENCES identities(id) ON DELETE CASCADE,
      authenticator_id TEXT,
      ip_address TEXT,
      config_types TEXT,
      last_activity_at TEXT NOT NULL,
      is_mfa_required INTEGER NOT NULL DEFAULT 0,
      is_mfa_complete INTEGER NOT NULL DEFAULT 0)`,
    `CREATE INDEX api_sessions_identity ON api_sessions(identity_id)`,
    `CREATE INDEX api_sessions_last_activity ON api_sessions(last_activity_at)`,
  ],
};
