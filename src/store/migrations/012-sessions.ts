// Sessions (an identity's leave to dial or bind one service through its API session) and the queue of identities
// whose sessions must be checked against posture again.
import type { Migration } from './migrate.js';
import { baseColumns as base } from './schema-parts.js';

export const sessionsSchema: Migration = {
  version: 12,
  name: 'sessions and posture rechecks',
  statements: [
    // A session goes with its API session (logout, expiry, identity disabled or deleted all delete that row), its
    // identity and its service, by the database's cascades rather than by code on each of those paths.
    `CREATE TABLE sessions (${base},
      token TEXT NOT NULL UNIQUE,
      api_session_id TEXT NOT NULL REFERENCES api_sessions(id) ON DELETE CASCADE,
      identity_id TEXT NOT NULL REFERENCES identities(id) ON DELETE CASCADE,
      service_id TEXT NOT NULL REFERENCES services(id) ON DELETE CASCADE,
      type TEXT NOT NULL,
      service_policies TEXT NOT NULL DEFAULT '[]')`,
    // One session per API session, service and type: creating it again answers the existing one (upstream's reuse).
    `CREATE UNIQUE INDEX sessions_api_session ON sessions(api_session_id, service_id, type)`,
    `CREATE INDEX sessions_identity ON sessions(identity_id, service_id)`,
    `CREATE INDEX sessions_service ON sessions(service_id)`,

    // Identities whose service lists changed while they held sessions: their sessions' posture is evaluated again
    // by the posture monitor, off the write that queued them.
    `CREATE TABLE session_posture_rechecks (
      identity_id TEXT PRIMARY KEY NOT NULL REFERENCES identities(id) ON DELETE CASCADE) WITHOUT ROWID`,
  ],
};
