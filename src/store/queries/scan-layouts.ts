// The storage the integrity scan (src/integrity/) walks and compares, spelled here so that the scan names no table or
// column itself: the derived tables' keys and compared columns, and the source columns it reads.
import type { TableName } from '../store.js';

/** A certificate's fingerprint column beside the PEM column it is the hash of. */
export interface FingerprintLayout {
  table: TableName;
  fingerprint: string;
  pem: string;
}

export const scanLayouts = {
  /** A set field's side table: one row per entity and element. */
  setRowKey: ['entity_id', 'value'],
  /** A policy's membership table: one row per entity and policy selecting it. */
  membershipKey: ['entity_id', 'policy_id'],
  /** When each identity's service list last changed. */
  serviceListTimes: { table: 'identity_service_updates', key: ['identity_id'], values: ['changed_at'] },
  /** Service config overrides, with their config's type beside them; walked by identity. */
  overrideConfigTypes: {
    table: 'identity_service_configs',
    sourceTable: 'identities',
    key: ['identity_id', 'service_id', 'config_id'],
    values: ['config_type_id'],
  },
  /** An entity's role attributes, read for every entity the policies may select. */
  roleAttributes: 'role_attributes',
  /** When an entity last changed, and a service's configs. */
  changedAt: 'updated_at',
  serviceConfigs: 'configs',
  /** Every config with when it changed and its type. */
  configs: { table: 'configs', columns: ['updated_at', 'config_type_id'] },
  /** The `id` key of rows that are their own source (fingerprints beside certificates). */
  ownKey: ['id'],
} as const;

/** Certificates' fingerprints, each kept beside its certificate for lookups (certificate login, enrollment). */
export const fingerprintLayouts: readonly FingerprintLayout[] = [
  { table: 'authenticators', fingerprint: 'cert_fingerprint', pem: 'cert_pem' },
  { table: 'authenticators', fingerprint: 'unverified_fingerprint', pem: 'unverified_cert_pem' },
  { table: 'routers', fingerprint: 'fingerprint', pem: 'cert_pem' },
  { table: 'routers', fingerprint: 'unverified_fingerprint', pem: 'unverified_cert_pem' },
  { table: 'cas', fingerprint: 'fingerprint', pem: 'cert_pem' },
  { table: 'api_session_certificates', fingerprint: 'fingerprint', pem: 'cert_pem' },
];
