// External JWT signers: identity providers whose JWTs log identities in (`ext-jwt`) or serve as a second factor.
import { boolean, defineEntity, json, text, timestamp } from '../../crud/define-entity.js';
import { externalJwtSignerRules } from './external-jwt-signer.rules.js';

export const externalJwtSigner = defineEntity({
  type: 'externalJwtSigner',
  path: 'external-jwt-signers',
  table: 'external_jwt_signers',
  idKind: 'base62',
  fields: {
    name: text({ unique: true }),
    certPem: text(),
    jwksEndpoint: text({ filter: false }),
    kid: text({ unique: true }),
    // Derived from certPem by the rules.
    fingerprint: text({ unique: true, writable: 'never' }),
    commonName: text({ writable: 'never' }),
    notBefore: timestamp({ writable: 'never' }),
    notAfter: timestamp({ writable: 'never' }),
    enabled: boolean(),
    externalAuthUrl: text({ filter: false }),
    claimsProperty: text(),
    useExternalId: boolean(),
    issuer: text({ unique: true }),
    audience: text(),
    // Beyond the 0.26.22 contract: what a client needs to run the provider's own login (OIDC client id and scopes).
    clientId: text({ filter: false }),
    scopes: json({ filter: false, fallback: () => [] }),
  },
  rules: externalJwtSignerRules,
});

/**
 * What anyone may read (client `GET /external-jwt-signers`): enabled signers' names and where to log in, nothing
 * about keys, issuers or audiences. Filters see only these fields.
 */
export const publicExternalJwtSigner = defineEntity({
  type: 'externalJwtSigner',
  path: 'external-jwt-signers',
  table: 'external_jwt_signers',
  idKind: 'base62',
  fields: {
    name: text(),
    externalAuthUrl: text({ filter: false }),
    clientId: text({ filter: false }),
    scopes: json({ filter: false }),
  },
  rules: { extend: (_context, signers) => Promise.resolve(signers.map((signer) => ({ scopes: signer.scopes ?? [] }))) },
});
