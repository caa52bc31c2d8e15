// An identity's policy-derived sub-lists, read from the link tables the policy engine maintains.
import type { OperationTable } from '../../http/operation.js';
import { linkedTo, list } from '../../crud/crud-handlers.js';
import { edgeRouter } from '../edge-router/edge-router.definition.js';
import { edgeRouterPolicy } from '../edge-router-policy/edge-router-policy.definition.js';
import { associatedService } from '../service/service.definition.js';
import { servicePolicy } from '../service-policy/service-policy.definition.js';
import { policyLinks } from '../../store/queries/policy-tables.js';
import { policyTypeCount } from '../shared/policy-type-count.js';
import { identity } from './identity.definition.js';

export const identityLinkOperations: OperationTable<'management'> = {
  listIdentityServicePolicies: list(servicePolicy, 'admin', {
    scope: linkedTo(identity, policyLinks.identityServicePolicies),
  }),
  listIdentitysEdgeRouterPolicies: list(edgeRouterPolicy, 'admin', {
    scope: linkedTo(identity, policyLinks.identityEdgeRouterPolicies),
  }),
  listIdentityServices: list(associatedService, 'admin', {
    scope: linkedTo(identity, { ...policyLinks.identityServices, positiveCount: policyTypeCount }),
  }),
  listIdentityEdgeRouters: list(edgeRouter, 'admin', {
    scope: linkedTo(identity, policyLinks.identityEdgeRouters),
  }),
};
