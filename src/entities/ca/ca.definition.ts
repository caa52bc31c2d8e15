// Certificate authorities: third-party CAs whose certificates may enroll (ottca, CA auto-enrollment) and log in.
import { boolean, defineEntity, json, stringSet, text } from '../../crud/define-entity.js';
import { caRules } from './ca.rules.js';

export const ca = defineEntity({
  type: 'ca',
  path: 'cas',
  table: 'cas',
  idKind: 'shortId',
  fields: {
    name: text({ unique: true }),
    fingerprint: text({ unique: true, writable: 'never' }),
    certPem: text({ filter: false, writable: 'create' }),
    // Set only by POST /cas/{id}/verify (upstream's CaManager.Update drops it from every other write).
    isVerified: boolean({ writable: 'never' }),
    verificationToken: text({ writable: 'never' }),
    isAutoCaEnrollmentEnabled: boolean(),
    isOttCaEnrollmentEnabled: boolean(),
    isAuthEnabled: boolean(),
    // Not filterable upstream: `anyOf(identityRoles) = …` there is an unknown symbol (asked of v1.1.8).
    identityRoles: stringSet({ filter: false }),
    identityNameFormat: text({ filter: false }),
    externalIdClaim: json({ filter: false }),
  },
  // Upstream's CaLinkFactory: `verify` only while there is something to verify, `jwt` only while it can be used.
  links: (entity) => ({
    ...(entity.isVerified ? {} : { verify: `./cas/${String(entity.id)}/verify` }),
    ...(entity.isAutoCaEnrollmentEnabled ? { jwt: `./cas/${String(entity.id)}/jwt` } : {}),
  }),
  rules: caRules,
});
