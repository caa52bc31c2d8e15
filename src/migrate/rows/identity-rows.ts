// Identities and what authenticates them: authenticators, pending enrollments, MFA, service-config overrides
// (upstream controller/db identity_store.go, authenticator_store.go, enrollment_store.go, mfa_store.go).
import type { ImportedRow } from '../../store/queries/upstream-import.js';
import type { StoredEntity } from '../bbolt/stored-entity.js';
import { baseColumns, drop, flag, mapColumn, precedenceName, setColumn, type Dropped } from './base-row.js';

/** Upstream's client info field names (`envInfoArch`, …) and the REST names the store keeps them under. */
const envInfoNames = {
  Arch: 'arch',
  Os: 'os',
  Release: 'osRelease',
  Version: 'osVersion',
  Domain: 'domain',
  Hostname: 'hostname',
};
const sdkInfoNames = {
  AppId: 'appId',
  AppVersion: 'appVersion',
  Branch: 'branch',
  Revision: 'revision',
  Type: 'type',
  Version: 'version',
};

/** Upstream keeps client info as flat fields (`envInfoArch`, `sdkInfoAppId`, …; observed in a v1.1.8 database). */
function clientInfo(entity: StoredEntity, prefix: string, names: Record<string, string>): string | null {
  const info = Object.fromEntries(
    Object.entries(names).flatMap(([field, restName]) => {
      const value = entity.string(`${prefix}${field}`);
      return value === undefined ? [] : [[restName, value]];
    }),
  );
  return Object.keys(info).length > 0 ? JSON.stringify(info) : null;
}

export function identityRow(entity: StoredEntity, importedAt: string): ImportedRow<'identity'> {
  const precedences = entity.map('serviceHostingPrecedences');
  return {
    ...baseColumns(entity, importedAt),
    name: entity.string('name') ?? entity.id,
    // User, Device and Service became Default in upstream's migration_v33.go.
    type_id: entity.string('type') === 'Router' ? 'Router' : 'Default',
    is_admin: flag(entity.bool('isAdmin')),
    is_default_admin: flag(entity.bool('isDefaultAdmin')),
    role_attributes: setColumn(entity.list('roleAttributes')),
    external_id: entity.string('externalId') || null,
    auth_policy_id: entity.string('authPolicyId') || 'default',
    app_data: mapColumn(entity, 'appData'),
    default_hosting_cost: entity.int('defaultHostingCost') ?? 0,
    default_hosting_precedence: precedenceName(entity.int('defaultHostingPrecedence')),
    service_hosting_costs: JSON.stringify(entity.map('serviceHostingCosts')),
    service_hosting_precedences: JSON.stringify(
      Object.fromEntries(Object.entries(precedences).map(([service, value]) => [service, precedenceName(value)])),
    ),
    disabled_at: entity.time('disabledAt') ?? null,
    disabled_until: entity.time('disabledUntil') ?? null,
    env_info: clientInfo(entity, 'envInfo', envInfoNames),
    sdk_info: clientInfo(entity, 'sdkInfo', sdkInfoNames),
  };
}

/** `serviceConfigs/<serviceId>/<configTypeId>` = config id: an identity's per-service config overrides. */
export function serviceConfigRows(identity: StoredEntity): ImportedRow<'serviceConfigOverride'>[] {
  const services = identity.child('serviceConfigs');
  if (!services) return [];
  return services.bucketNames().flatMap((serviceId) => {
    const byType = services.child(serviceId);
    return Object.entries(byType ? stringValues(byType) : {}).map(([configTypeId, configId]) => ({
      identity_id: identity.id,
      service_id: serviceId,
      config_type_id: configTypeId,
      config_id: configId,
    }));
  });
}

function stringValues(entity: StoredEntity): Record<string, string> {
  return Object.fromEntries(
    entity.valueNames().flatMap((name) => {
      const value = entity.string(name);
      return value === undefined ? [] : [[name, value]];
    }),
  );
}

export function authenticatorRow(
  entity: StoredEntity,
  importedAt: string,
  dropped: Dropped,
): ImportedRow<'authenticator'> | undefined {
  const method = entity.string('method');
  const identityId = entity.string('identity');
  if ((method !== 'updb' && method !== 'cert') || identityId === undefined) {
    drop(dropped, `authenticator of method ${method ?? '(none)'}`);
    return undefined;
  }
  return {
    ...baseColumns(entity, importedAt),
    identity_id: identityId,
    method,
    // Hash and salt are argon2id in standard base64, stored as upstream stored them (docs/reference §b).
    username: entity.string('updbUsername') ?? null,
    password_hash: entity.string('updbPassword') ?? null,
    password_salt: entity.string('updbSalt') ?? null,
    cert_fingerprint: entity.string('certFingerprint') || null,
    cert_pem: entity.string('certPem') || null,
    unverified_cert_pem: entity.string('unverifiedCertPem') || null,
    unverified_fingerprint: entity.string('unverifiedCertFingerprint') || null,
  };
}

const enrollmentMethods = new Set(['ott', 'ottca', 'updb', 'erott', 'trott']);

export function enrollmentRow(
  entity: StoredEntity,
  importedAt: string,
  dropped: Dropped,
): ImportedRow<'enrollment'> | undefined {
  const method = entity.string('method');
  const token = entity.string('token');
  const expiresAt = entity.time('expiresAt');
  const jwt = entity.string('jwt');
  if (method === undefined || !enrollmentMethods.has(method) || !token || !expiresAt || !jwt) {
    drop(dropped, 'enrollment without a method, token, expiry or JWT');
    return undefined;
  }
  // Upstream writes no base times on enrollments (it shows Go's zero time); their issue time is when they were made.
  const issuedAt = entity.time('issuedAt') ?? importedAt;
  return {
    ...baseColumns(entity, issuedAt),
    method,
    token,
    expires_at: expiresAt,
    identity_id: entity.string('identity') ?? null,
    router_id: entity.string('edgeRouter') ?? entity.string('transitRouter') ?? null,
    ca_id: entity.string('caId') || null,
    username: entity.string('username') || null,
    jwt,
  };
}

export function mfaRow(entity: StoredEntity, importedAt: string, dropped: Dropped): ImportedRow<'mfa'> | undefined {
  const identityId = entity.string('identity');
  const secret = entity.string('secret');
  if (identityId === undefined || secret === undefined) {
    drop(dropped, 'MFA without identity or secret');
    return undefined;
  }
  return {
    ...baseColumns(entity, importedAt),
    identity_id: identityId,
    is_verified: flag(entity.bool('isVerified')),
    // Plain base32 secret and plain recovery codes, as upstream keeps them (mfa_manager.go); nothing to rehash.
    secret,
    recovery_codes: JSON.stringify(entity.list('recoveryCodes')),
  };
}
