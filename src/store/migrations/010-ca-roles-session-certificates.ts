// CA identity roles as a set (filterable with anyOf / allOf like other role sets), and API-session certificates
// whose fingerprint may repeat: every certificate login with the same certificate records it for its own session.
import type { Migration } from './migrate.js';
import { baseColumns as base, setTable } from './schema-parts.js';

export const caRolesAndSessionCertificates: Migration = {
  version: 10,
  name: 'CA identity roles set, API-session certificate fingerprints not unique',
  statements: [
    ...setTable('ca_identity_roles', 'cas'),

    // 008 declared the fingerprint UNIQUE; a table is rebuilt to drop a constraint in the SQL both dialects share.
    `CREATE TABLE api_session_certificates_next (${base},
      api_session_id TEXT NOT NULL REFERENCES api_sessions(id) ON DELETE CASCADE,
      subject TEXT NOT NULL,
      fingerprint TEXT NOT NULL,
      valid_from TEXT NOT NULL,
      valid_to TEXT NOT NULL,
      cert_pem TEXT NOT NULL)`,
    `INSERT INTO api_session_certificates_next
      (id, created_at, updated_at, tags, is_system, api_session_id, subject, fingerprint, valid_from, valid_to, cert_pem)
      SELECT id, created_at, updated_at, tags, is_system, api_session_id, subject, fingerprint, valid_from, valid_to, cert_pem
      FROM api_session_certificates`,
    `DROP TABLE api_session_certificates`,
    `ALTER TABLE api_session_certificates_next RENAME TO api_session_certificates`,
    `CREATE INDEX api_session_certificates_session ON api_session_certificates(api_session_id)`,
    `CREATE INDEX api_session_certificates_fingerprint ON api_session_certificates(fingerprint)`,
  ],
};
