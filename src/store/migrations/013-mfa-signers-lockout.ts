// TOTP MFA records, external JWT signers (and the auth-policy references to them), and the login state that must
// outlive a restart and be shared by every controller on the database: lockout counters and throttling windows.
import type { Migration } from './migrate.js';
import { baseColumns as base, setTable } from './schema-parts.js';

export const mfaSignersAndLockout: Migration = {
  version: 13,
  name: 'MFA, external JWT signers, lockout counters and login throttling',
  statements: [
    // One record per identity (upstream refuses a second with MFA_EXISTS). `last_totp_step` refuses a code's reuse.
    `CREATE TABLE mfas (${base},
      identity_id TEXT NOT NULL UNIQUE REFERENCES identities(id) ON DELETE CASCADE,
      is_verified INTEGER NOT NULL DEFAULT 0,
      secret TEXT NOT NULL,
      recovery_codes TEXT NOT NULL,
      last_totp_step INTEGER NOT NULL DEFAULT 0)`,
    // When the session last passed MFA: what MFA posture checks read.
    `ALTER TABLE api_sessions ADD COLUMN mfa_completed_at TEXT`,
    // Consecutive password failures, for the auth policy's lockout.
    `ALTER TABLE authenticators ADD COLUMN failed_attempts INTEGER NOT NULL DEFAULT 0`,
    // Failed logins per key (`username:…`, `address:…`, `mfa:…`) within a window that ends at `window_ends_at`.
    `CREATE TABLE login_failures (
      key TEXT PRIMARY KEY NOT NULL,
      failures INTEGER NOT NULL,
      window_ends_at TEXT NOT NULL)`,
    `CREATE INDEX login_failures_window_end ON login_failures(window_ends_at)`,

    `CREATE TABLE external_jwt_signers (${base},
      name TEXT NOT NULL UNIQUE,
      cert_pem TEXT,
      jwks_endpoint TEXT,
      kid TEXT UNIQUE,
      fingerprint TEXT UNIQUE,
      common_name TEXT NOT NULL DEFAULT '',
      not_before TEXT,
      not_after TEXT,
      enabled INTEGER NOT NULL DEFAULT 0,
      external_auth_url TEXT,
      claims_property TEXT NOT NULL DEFAULT 'sub',
      use_external_id INTEGER NOT NULL DEFAULT 0,
      issuer TEXT NOT NULL UNIQUE,
      audience TEXT,
      client_id TEXT,
      scopes TEXT)`,
    // A policy's allowed signers as a set whose elements reference signers, so a referenced signer cannot go.
    ...setTable('auth_policy_primary_ext_jwt_allowed_signers', 'auth_policies', 'external_jwt_signers'),
    `CREATE INDEX auth_policies_required_signer ON auth_policies(secondary_require_ext_jwt_signer)`,
  ],
};
