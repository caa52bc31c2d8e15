// A service's policy-derived sub-lists, read from the link tables the policy engine maintains.
import type { OperationTable } from '../../http/operation.js';
import { linkedTo, list } from '../../crud/crud-handlers.js';
import { edgeRouter } from '../edge-router/edge-router.definition.js';
import { identity } from '../identity/identity.definition.js';
import { policyTypeCount } from '../shared/policy-type-count.js';
import { serviceEdgeRouterPolicy } from '../service-edge-router-policy/service-edge-router-policy.definition.js';
import { servicePolicy } from '../service-policy/service-policy.definition.js';
import { policyLinks } from '../../store/queries/policy-tables.js';
import { service } from './service.definition.js';

export const serviceLinkOperations: OperationTable<'management'> = {
  listServiceIdentities: list(identity, 'admin', {
    scope: linkedTo(service, { ...policyLinks.serviceIdentities, positiveCount: policyTypeCount }),
  }),
  listServiceEdgeRouters: list(edgeRouter, 'admin', {
    scope: linkedTo(service, policyLinks.serviceEdgeRouters),
  }),
  listServiceServicePolicies: list(servicePolicy, 'admin', {
    scope: linkedTo(service, policyLinks.serviceServicePolicies),
  }),
  listServiceServiceEdgeRouterPolicies: list(serviceEdgeRouterPolicy, 'admin', {
    scope: linkedTo(service, policyLinks.serviceServiceEdgeRouterPolicies),
  }),
};
