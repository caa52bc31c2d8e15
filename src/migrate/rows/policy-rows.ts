// The three policy kinds, posture checks, auth policies, CAs and external JWT signers (upstream controller/db
// service_policy_store.go, edge_router_policy_store.go, service_edge_router_policy_store.go, posture_check_*.go,
// auth_policy_store.go, ca_store.go, external_jwt_signer_store.go). Their link tables are derived, never copied.
import { postureCheckSubtype } from '../../entities/posture-check/posture-check-subtypes.js';
import type { ImportedRow } from '../../store/queries/upstream-import.js';
import type { StoredEntity } from '../bbolt/stored-entity.js';
import { baseColumns, drop, flag, setColumn, type Dropped } from './base-row.js';

const semanticOf = (entity: StoredEntity) => entity.string('semantic') || 'AllOf';

export function servicePolicyRow(entity: StoredEntity, importedAt: string): ImportedRow<'servicePolicy'> {
  return {
    ...baseColumns(entity, importedAt),
    name: entity.string('name') ?? entity.id,
    // 1 Dial, 2 Bind: the same numbers as upstream stores.
    type: entity.int('type') === 2 ? 2 : 1,
    semantic: semanticOf(entity),
    identity_roles: setColumn(entity.list('identityRoles')),
    service_roles: setColumn(entity.list('serviceRoles')),
    posture_check_roles: setColumn(entity.list('postureCheckRoles')),
  };
}

export function edgeRouterPolicyRow(entity: StoredEntity, importedAt: string): ImportedRow<'edgeRouterPolicy'> {
  return {
    ...baseColumns(entity, importedAt),
    name: entity.string('name') ?? entity.id,
    semantic: semanticOf(entity),
    identity_roles: setColumn(entity.list('identityRoles')),
    edge_router_roles: setColumn(entity.list('edgeRouterRoles')),
  };
}

export function serviceEdgeRouterPolicyRow(
  entity: StoredEntity,
  importedAt: string,
): ImportedRow<'serviceEdgeRouterPolicy'> {
  return {
    ...baseColumns(entity, importedAt),
    name: entity.string('name') ?? entity.id,
    semantic: semanticOf(entity),
    service_roles: setColumn(entity.list('serviceRoles')),
    edge_router_roles: setColumn(entity.list('edgeRouterRoles')),
  };
}

/** A posture check's type bucket in the REST shape its subtype's `normalise` takes (posture-check-subtypes.ts). */
function postureInput(typeId: string, stored: StoredEntity | undefined): Record<string, unknown> {
  if (!stored) return {};
  switch (typeId) {
    case 'OS':
      return {
        operatingSystems: stored.bucketNames().map((name) => {
          const os = stored.child(name);
          return { type: os?.string('osType') ?? name, versions: os?.list('osVersions') ?? [] };
        }),
      };
    case 'MAC':
      return { macAddresses: stored.list('macAddresses') };
    case 'DOMAIN':
      return { domains: stored.list('domains') };
    case 'PROCESS':
      return {
        process: {
          osType: stored.string('os'),
          path: stored.string('path'),
          hashes: stored.list('hashes'),
          signerFingerprint: stored.string('fingerprint'),
        },
      };
    case 'PROCESS_MULTI': {
      const processes = stored.child('processes');
      return {
        semantic: stored.string('semantic'),
        processes: (processes?.bucketNames() ?? []).map((name) => {
          const process = processes?.child(name);
          return {
            osType: process?.string('osType'),
            path: process?.string('path'),
            hashes: process?.list('hashes') ?? [],
            signerFingerprints: process?.list('signerFingerprints') ?? [],
          };
        }),
      };
    }
    case 'MFA':
      return {
        timeoutSeconds: stored.int('timeoutSeconds') ?? -1,
        promptOnWake: stored.bool('promptOnWake'),
        promptOnUnlock: stored.bool('promptOnUnlock'),
        ignoreLegacyEndpoints: stored.bool('ignoreLegacyEndpoints'),
      };
    default:
      return {};
  }
}

export function postureCheckRow(
  entity: StoredEntity,
  importedAt: string,
  dropped: Dropped,
): ImportedRow<'postureCheck'> | undefined {
  const typeId = entity.string('typeId') ?? '';
  const subtype = postureCheckSubtype(typeId);
  if (!subtype) {
    drop(dropped, `posture check of type ${typeId || '(none)'}`);
    return undefined;
  }
  const details = subtype.normalise(postureInput(typeId, entity.child(typeId)));
  const prompts = subtype.filterValues?.(details);
  return {
    ...baseColumns(entity, importedAt),
    name: entity.string('name') ?? entity.id,
    type_id: typeId,
    version: entity.int('version') ?? 0,
    role_attributes: setColumn(entity.list('roleAttributes')),
    details: JSON.stringify(details),
    prompt_on_wake: prompts ? flag(prompts.promptOnWake) : null,
    prompt_on_unlock: prompts ? flag(prompts.promptOnUnlock) : null,
  };
}

/** Upstream's defaults where a key is absent (auth_policy_store.go FillEntity). */
const flagOr = (entity: StoredEntity, name: string, fallback: boolean) =>
  flag(entity.has(name) ? entity.bool(name) : fallback);

export function authPolicyRow(entity: StoredEntity, importedAt: string): ImportedRow<'authPolicy'> {
  return {
    ...baseColumns(entity, importedAt),
    name: entity.string('name') ?? entity.id,
    primary_cert_allowed: flagOr(entity, 'primary.cert.allowed', true),
    primary_cert_allow_expired_certs: flagOr(entity, 'primary.cert.allowExpiredCerts', true),
    primary_updb_allowed: flagOr(entity, 'primary.updb.allowed', true),
    primary_updb_min_password_length: entity.int('primary.updb.minPasswordLength') ?? 5,
    primary_updb_require_special_char: flagOr(entity, 'primary.updb.requireSpecialChar', false),
    primary_updb_require_number_char: flagOr(entity, 'primary.updb.requireNumberChar', false),
    primary_updb_require_mixed_case: flagOr(entity, 'primary.updb.requireMixedCase', false),
    primary_updb_max_attempts: entity.int('primary.updb.maxAttempts') ?? 5,
    primary_updb_lockout_duration_minutes: entity.int('primary.updb.lockoutDurationMinutes') ?? 0,
    primary_ext_jwt_allowed: flagOr(entity, 'primary.extJwt.allowed', true),
    primary_ext_jwt_allowed_signers: setColumn(entity.list('primary.extJwt.allowedSigners')),
    secondary_require_totp: flagOr(entity, 'secondary.requireTotp', false),
    secondary_require_ext_jwt_signer: entity.string('secondary.requireExtJwtSigner') || null,
  };
}

export function caRow(entity: StoredEntity, importedAt: string): ImportedRow<'ca'> {
  const claim = entity.child('externalIdClaim');
  return {
    ...baseColumns(entity, importedAt),
    name: entity.string('name') ?? entity.id,
    fingerprint: entity.string('fingerprint') ?? '',
    cert_pem: entity.string('certPem') ?? '',
    is_verified: flag(entity.bool('isVerified')),
    verification_token: entity.string('verificationToken') || null,
    is_auto_ca_enrollment_enabled: flag(entity.bool('isAutoCaEnrollmentEnabled')),
    is_ott_ca_enrollment_enabled: flag(entity.bool('isOttCaEnrollmentEnabled')),
    is_auth_enabled: flag(entity.bool('isAuthEnabled')),
    identity_name_format: entity.string('identityNameFormat') ?? null,
    identity_roles: setColumn(entity.list('identityRoles')),
    external_id_claim: claim
      ? JSON.stringify({
          location: claim.string('externalIdClaim.location') ?? '',
          matcher: claim.string('externalIdClaim.matcher') ?? '',
          matcherCriteria: claim.string('externalIdClaim.matcherCriteria') ?? '',
          parser: claim.string('externalIdClaim.parser') ?? '',
          // Upstream's field is named parserSeparator in the database, parserCriteria in the API.
          parserCriteria: claim.string('externalIdClaim.parserSeparator') ?? '',
          index: claim.int('externalIdClaim.index') ?? 0,
        })
      : null,
  };
}

export function externalJwtSignerRow(
  entity: StoredEntity,
  importedAt: string,
  dropped: Dropped,
): ImportedRow<'externalJwtSigner'> | undefined {
  const issuer = entity.string('issuer');
  if (issuer === undefined) {
    drop(dropped, 'external JWT signer without an issuer');
    return undefined;
  }
  return {
    ...baseColumns(entity, importedAt),
    name: entity.string('name') ?? entity.id,
    cert_pem: entity.string('certPem') || null,
    jwks_endpoint: entity.string('jwksEndpoint') || null,
    kid: entity.string('kid') || null,
    fingerprint: entity.string('fingerprint') || null,
    common_name: entity.string('commonName') ?? '',
    not_before: entity.time('notBefore') ?? null,
    not_after: entity.time('notAfter') ?? null,
    enabled: flag(entity.bool('enabled')),
    external_auth_url: entity.string('externalAuthUrl') || null,
    claims_property: entity.string('claimsProperty') || 'sub',
    use_external_id: flag(entity.bool('useExternalId')),
    issuer,
    audience: entity.string('audience') || null,
  };
}
