// The An external JWT signer's stored fields, declared apart from its definition so that its rules read their types.
import { boolean, json, text, timestamp, type ValuesOf } from '../../crud/define-entity.js';

export const externalJwtSignerFields = {
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
};

export type ExternalJwtSigner = ValuesOf<typeof externalJwtSignerFields>;
