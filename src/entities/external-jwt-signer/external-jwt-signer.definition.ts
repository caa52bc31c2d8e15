// External JWT signers: identity providers whose JWTs log identities in (`ext-jwt`) or serve as a second factor.
import { defineEntity, json, text } from '../../crud/define-entity.js';
import { externalJwtSignerFields } from './external-jwt-signer.fields.js';
import { externalJwtSignerRules } from './external-jwt-signer.rules.js';

export const externalJwtSigner = defineEntity({
  type: 'externalJwtSigner',
  path: 'external-jwt-signers',
  table: 'external_jwt_signers',
  idKind: 'base62',
  fields: externalJwtSignerFields,
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
