// Service policies: which identities may dial or bind which services, under which posture checks.
import { ApiError } from '../../errors/api-error.js';
import { defineEntity, integer, stringSet, text } from '../../crud/define-entity.js';
import { linkSymbol, policyLinks, servicePolicyKind } from '../../store/queries/policy-tables.js';
import { policyRules } from '../shared/policy-rules.js';

/** Stored and filtered as upstream stores it (`type = 2` finds Bind policies): 1 Dial, 2 Bind. */
const storedType = (value: unknown) =>
  String(value).toLowerCase() === 'bind' ? 2 : String(value).toLowerCase() === 'dial' ? 1 : undefined;

export const servicePolicy = defineEntity({
  type: 'servicePolicy',
  deletedAs: 'servicePolicies',
  path: 'service-policies',
  table: 'service_policies',
  idKind: 'base62',
  fields: {
    name: text({ unique: true }),
    type: integer({ output: false }),
    semantic: text({ fallback: () => 'AllOf' }),
    identityRoles: stringSet(),
    serviceRoles: stringSet(),
    postureCheckRoles: stringSet(),
  },
  links: (policy) => {
    const base = `./service-policies/${policy.id}`;
    return {
      services: `${base}/services`,
      identities: `${base}/identities`,
      'posture-checks': `${base}/posture-checks`,
    };
  },
  // The members the policy engine keeps per policy: `anyOf(identities) = "<id>"` is an index lookup.
  symbols: {
    identities: linkSymbol(policyLinks.servicePolicyIdentities),
    services: linkSymbol(policyLinks.servicePolicyServices),
  },
  rules: policyRules(servicePolicyKind, 'servicePolicy', {
    validate(change) {
      const given = change.body.type;
      if (given === undefined || given === null) return;
      const type = storedType(given);
      if (type === undefined)
        throw ApiError.invalidField('policyType', "invalid policy type. valid types are 'Dial' and 'Bind'", given);
      change.after.type = type;
    },
    extend: (policy) => ({ type: policy.type === 2 ? 'Bind' : 'Dial' }),
  }),
});
