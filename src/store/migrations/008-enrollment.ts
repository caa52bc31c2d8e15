// Third-party CAs, enrollments (one-time tokens for identities and routers), API-session certificates, and the
// pending certificate of an authenticator being extended.
import type { Migration } from './migrate.js';
import { baseColumns as base } from './schema-parts.js';

export const enrollmentSchema: Migration = {
  version: 8,
  name: 'CAs, enrollments and API-session certificates',
  statements: [
    `CREATE TABLE cas (${base},
      name TEXT NOT NULL UNIQUE,
      fingerprint TEXT NOT NULL UNIQUE,
      cert_pem TEXT NOT NULL,
      is_verified INTEGER NOT NULL DEFAULT 0,
      verification_token TEXT,
      is_auto_ca_enrollment_enabled INTEGER NOT NULL DEFAULT 0,
      is_ott_ca_enrollment_enabled INTEGER NOT NULL DEFAULT 0,
      is_auth_enabled INTEGER NOT NULL DEFAULT 0,
      identity_name_format TEXT,
      identity_roles TEXT,
      external_id_claim TEXT)`,

    // Exactly one of identity_id / router_id is set; expiry is checked for every method.
    `CREATE TABLE enrollments (${base},
      method TEXT NOT NULL,
      token TEXT NOT NULL UNIQUE,
      expires_at TEXT NOT NULL,
      identity_id TEXT REFERENCES identities(id) ON DELETE CASCADE,
      router_id TEXT REFERENCES routers(id) ON DELETE CASCADE,
      ca_id TEXT REFERENCES cas(id) ON DELETE CASCADE,
      username TEXT,
      jwt TEXT NOT NULL)`,
    `CREATE INDEX enrollments_identity ON enrollments(identity_id, method)`,
    `CREATE INDEX enrollments_router ON enrollments(router_id)`,
    `CREATE INDEX enrollments_ca ON enrollments(ca_id)`,

    `CREATE TABLE api_session_certificates (${base},
      api_session_id TEXT NOT NULL REFERENCES api_sessions(id) ON DELETE CASCADE,
      subject TEXT NOT NULL,
      fingerprint TEXT NOT NULL UNIQUE,
      valid_from TEXT NOT NULL,
      valid_to TEXT NOT NULL,
      cert_pem TEXT NOT NULL)`,
    `CREATE INDEX api_session_certificates_session ON api_session_certificates(api_session_id)`,

    // A certificate authenticator being extended keeps working with its old certificate until the new one is
    // verified (extend-verify), so the new one waits here.
    `ALTER TABLE authenticators ADD COLUMN unverified_cert_pem TEXT`,
    `ALTER TABLE authenticators ADD COLUMN unverified_fingerprint TEXT`,
    // The CA that issued a certificate authenticator's certificate (deleting the CA deletes them).
    `ALTER TABLE authenticators ADD COLUMN ca_id TEXT REFERENCES cas(id) ON DELETE CASCADE`,
  ],
};
