// External JWT signer rules (docs/reference/pki-enrollment-auth.md §8.1): blanks stored as none, exactly one key source
// (a certificate or a JWKS endpoint over http(s)), certificate details derived, and no deletion while an auth policy
// names the signer.
import { X509Certificate } from 'node:crypto';
import { ApiError } from '../../errors/api-error.js';
import { authPoliciesAllowingSigner, firstAuthPolicyRequiringSigner } from '../../store/queries/auth-policies.js';
import type { EntityRules } from '../../crud/entity-rules.js';
import type { ExternalJwtSigner } from './external-jwt-signer.fields.js';
import { formatTimestamp } from '../../lib/clock.js';
import { certificateFingerprint } from '../../pki/fingerprint.js';
import { splitPemCertificates } from '../../pki/pem.js';
import { isHttpUrl } from '../../auth/ext-jwt/jwks-fetch.js';

/** Go's zero time, what upstream renders for the certificate dates of a JWKS signer. */
const ZERO_TIME = '0001-01-01T00:00:00.000Z';

const blank = (value: unknown) =>
  value === undefined || value === null || (typeof value === 'string' && value.trim() === '');

/** As upstream's PersistEntity: blank optional strings are stored as none, a blank claims property as `sub`. */
function normalise(signer: ExternalJwtSigner): void {
  for (const field of ['certPem', 'jwksEndpoint', 'kid', 'externalAuthUrl', 'audience', 'clientId'] as const) {
    if (blank(signer[field])) signer[field] = null;
  }
  if (blank(signer.claimsProperty)) signer.claimsProperty = 'sub';
  if (blank(signer.issuer)) throw ApiError.invalidField('issuer', 'issuer is required', signer.issuer);
  const scopes = signer.scopes ?? [];
  if (!Array.isArray(scopes) || scopes.some((scope) => typeof scope !== 'string')) {
    throw ApiError.invalidField('scopes', 'scopes must be a list of strings', scopes);
  }
  signer.scopes = scopes;
}

/** One key source: a certificate (its details derived here) or a JWKS endpoint, never both, never neither. */
function deriveKeySource(signer: ExternalJwtSigner): void {
  if (signer.certPem === null && signer.jwksEndpoint === null)
    throw ApiError.invalidField('certPem', 'jwksEndpoint or certPem is required', null);
  if (signer.certPem !== null && signer.jwksEndpoint !== null) {
    throw ApiError.invalidField(
      'jwksEndpoint',
      'only one of jwksEndpoint or certPem may be defined',
      signer.jwksEndpoint,
    );
  }
  if (signer.jwksEndpoint !== null) {
    if (!isHttpUrl(signer.jwksEndpoint))
      throw ApiError.invalidField('jwksEndpoint', 'jwksEndpoint must be an http or https URL', signer.jwksEndpoint);
    Object.assign(signer, { fingerprint: null, commonName: '', notBefore: null, notAfter: null });
    return;
  }
  const blocks = splitPemCertificates(signer.certPem ?? '');
  const [block = ''] = blocks;
  let certificate: X509Certificate;
  try {
    if (blocks.length !== 1) throw new Error('one certificate expected');
    certificate = new X509Certificate(block);
  } catch {
    throw new ApiError('INVALID_CERT_PEM');
  }
  const commonName = /(?:^|\n)CN=([^\n]*)/.exec(certificate.subject)?.[1] ?? '';
  Object.assign(signer, {
    fingerprint: certificateFingerprint(block),
    commonName,
    notBefore: formatTimestamp(new Date(Date.parse(certificate.validFrom))),
    notAfter: formatTimestamp(new Date(Date.parse(certificate.validTo))),
  });
}

export const externalJwtSignerRules: EntityRules<ExternalJwtSigner> = {
  validate(_context, change) {
    const signer = change.after;
    normalise(signer);
    deriveKeySource(signer);
    return Promise.resolve();
  },

  /** Upstream refuses through its allowed-signers links first, then through its foreign key on the required signer. */
  async beforeDelete({ tx }, existing) {
    const id = existing.id;
    const allowing = await authPoliciesAllowingSigner(tx, id);
    if (allowing.length > 0)
      throw ApiError.referencedByLinks('externalJwtSigners', 'primary.extJwt.allowedSigners', 'authPolicies', allowing);
    const requiring = await firstAuthPolicyRequiringSigner(tx, id);
    if (requiring)
      throw ApiError.referencedByKey('externalJwtSigner', 'secondary.requireExtJwtSigner', 'authPolicy', requiring);
  },

  extend(_context, signers) {
    return Promise.resolve(
      signers.map((signer) => ({
        notBefore: signer.notBefore ?? ZERO_TIME,
        notAfter: signer.notAfter ?? ZERO_TIME,
        scopes: signer.scopes ?? [],
      })),
    );
  },
};
