// Routers, services, configs, config types and terminators (upstream controller/db router_store.go with its
// `edge/` and `transitRouter/` child stores, service_store.go with `edge/`, config_store.go, config_type_store.go,
// terminator_store.go).
import type { ImportedRow } from '../../store/queries/upstream-import.js';
import type { StoredEntity } from '../bbolt/stored-entity.js';
import { baseColumns, drop, flag, mapColumn, setColumn, type Dropped } from './base-row.js';

export function routerRow(entity: StoredEntity, importedAt: string): ImportedRow<'router'> {
  const edge = entity.child('edge');
  const transit = entity.child('transitRouter');
  return {
    ...baseColumns(entity, importedAt),
    name: entity.string('name') ?? entity.id,
    is_edge: flag(edge !== undefined),
    cost: entity.int('cost') ?? 0,
    no_traversal: flag(entity.bool('noTraversal')),
    disabled: flag(entity.bool('disabled')),
    is_verified: flag((edge ?? transit)?.bool('isVerified') ?? false),
    // SHA-1 of the router's client certificate: what the control channel looks the router up by.
    fingerprint: entity.string('fingerprint') || null,
    cert_pem: edge?.string('certPem') || null,
    unverified_fingerprint: edge?.string('unverifiedFingerprint') || null,
    unverified_cert_pem: edge?.string('unverifiedCertPem') || null,
    role_attributes: setColumn(edge?.list('roleAttributes') ?? []),
    is_tunneler_enabled: flag(edge?.bool('isTunnelerEnabled') ?? false),
    app_data: edge ? mapColumn(edge, 'appData') : null,
  };
}

const NANOS_PER_MILLI = 1_000_000;

export function serviceRow(entity: StoredEntity, importedAt: string): ImportedRow<'service'> {
  const edge = entity.child('edge');
  return {
    ...baseColumns(entity, importedAt),
    name: entity.string('name') ?? edge?.string('name') ?? entity.id,
    terminator_strategy: entity.string('terminatorStrategy') || 'smartrouting',
    role_attributes: setColumn(edge?.list('roleAttributes') ?? []),
    // eslint-disable-next-line storage/no-storage-words -- upstream's field name in its service bucket
    configs: setColumn(edge?.list('configs') ?? []),
    encryption_required: flag(edge?.bool('encryptionRequired') ?? false),
    // Upstream keeps a Go duration (nanoseconds).
    max_idle_time_millis: Math.floor((entity.int('maxIdleTime') ?? 0) / NANOS_PER_MILLI),
  };
}

export function configRow(
  entity: StoredEntity,
  importedAt: string,
  dropped: Dropped,
): ImportedRow<'config'> | undefined {
  const typeId = entity.string('type');
  if (typeId === undefined) {
    drop(dropped, 'config without a type');
    return undefined;
  }
  return {
    ...baseColumns(entity, importedAt),
    name: entity.string('name') ?? entity.id,
    config_type_id: typeId,
    data: JSON.stringify(entity.map('data')),
  };
}

export function configTypeRow(entity: StoredEntity, importedAt: string): ImportedRow<'configType'> {
  // Upstream stores the schema as JSON text; the store keeps it as JSON too, re-serialised in its own form.
  const schema = entity.string('schema');
  return {
    ...baseColumns(entity, importedAt),
    name: entity.string('name') ?? entity.id,
    schema: schema ? JSON.stringify(JSON.parse(schema)) : null,
  };
}

/**
 * Terminators an SDK or a tunneler hosts (binding `edge`, `edge_transport`) are made again when the host binds
 * through the new controller, and would route to nobody until then; those created through the API persist.
 */
const hostedBindings = new Set(['edge', 'edge_transport']);

export function terminatorRow(
  entity: StoredEntity,
  importedAt: string,
  dropped: Dropped,
): ImportedRow<'terminator'> | undefined {
  const serviceId = entity.string('service');
  const routerId = entity.string('router');
  const binding = entity.string('binding');
  if (serviceId === undefined || routerId === undefined || binding === undefined) {
    drop(dropped, 'terminator without service, router or binding');
    return undefined;
  }
  if (hostedBindings.has(binding)) {
    drop(dropped, 'terminator hosted by an SDK or tunneler (made again when it binds)');
    return undefined;
  }
  return {
    ...baseColumns(entity, importedAt),
    service_id: serviceId,
    router_id: routerId,
    binding,
    address: entity.string('address') ?? '',
    instance_id: entity.string('instanceId') || null,
    cost: entity.int('cost') ?? 0,
    precedence: entity.string('precedence') || 'default',
    host_id: entity.string('hostId') || null,
  };
}
