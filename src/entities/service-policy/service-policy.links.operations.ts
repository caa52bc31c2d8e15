// A service policy's members, read from the membership tables the policy engine maintains.
import type { OperationTable } from '../../http/operation.js';
import { policyLinks } from '../../store/queries/policy-tables.js';
import { linkedTo, list } from '../../crud/crud-handlers.js';
import { identity } from '../identity/identity.definition.js';
import { postureCheck } from '../posture-check/posture-check.definition.js';
import { associatedService } from '../service/service.definition.js';
import { servicePolicy } from './service-policy.definition.js';

export const servicePolicyLinkOperations: OperationTable<'management'> = {
  listServicePolicyIdentities: list(identity, 'admin', {
    scope: linkedTo(servicePolicy, policyLinks.servicePolicyIdentities),
  }),
  listServicePolicyServices: list(associatedService, 'admin', {
    scope: linkedTo(servicePolicy, policyLinks.servicePolicyServices),
  }),
  listServicePolicyPostureChecks: list(postureCheck, 'admin', {
    scope: linkedTo(servicePolicy, policyLinks.servicePolicyPostureChecks),
  }),
};
