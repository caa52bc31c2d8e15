// What several controller instances on one database share beyond the model (issue 14): the cluster's PKI and id,
// stored on first start so certificates, enrollment JWTs and sessions from one instance are valid on all; and one
// heartbeat row per running instance for `GET /controllers`; and clients' posture reports.
import type { Migration } from './migrate.js';

export const clusterSchema: Migration = {
  version: 16,
  name: 'cluster PKI, instances and reported posture',
  statements: [
    // Named PEM texts (root/signing CA certificates and keys, server certificate and key) and the cluster id.
    `CREATE TABLE cluster_secrets (name TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL, updated_at TEXT NOT NULL)`,
    `CREATE TABLE controller_instances (
      id TEXT PRIMARY KEY NOT NULL,
      name TEXT NOT NULL,
      api_base TEXT NOT NULL,
      started_at TEXT NOT NULL,
      last_seen_at TEXT NOT NULL)`,
    `CREATE INDEX controller_instances_last_seen ON controller_instances(last_seen_at)`,
    // What each identity's clients reported about their devices (posture), one JSON document per identity, so a
    // report made through one instance counts on every other.
    `CREATE TABLE reported_posture (
      identity_id TEXT PRIMARY KEY NOT NULL REFERENCES identities(id) ON DELETE CASCADE,
      data TEXT NOT NULL,
      updated_at TEXT NOT NULL)`,
  ],
};
