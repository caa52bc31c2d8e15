// Identity tracing (`PUT /identities/{id}/trace`): kept in the database rather than one process's memory, so every
// instance sharing it sees the same traces; a row past `until` is expired and removed on the next trace write.
import type { Migration } from './migrate.js';

export const identityTraces: Migration = {
  version: 14,
  name: 'identity traces',
  statements: [
    `CREATE TABLE identity_traces (
      identity_id TEXT PRIMARY KEY NOT NULL REFERENCES identities(id) ON DELETE CASCADE,
      trace_id TEXT NOT NULL,
      channels TEXT NOT NULL,
      created_at TEXT NOT NULL,
      until TEXT NOT NULL)`,
    `CREATE INDEX identity_traces_until ON identity_traces(until)`,
  ],
};
