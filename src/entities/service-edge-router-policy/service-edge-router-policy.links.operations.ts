// A service edge router policy's members, read from the membership tables the policy engine maintains.
import type { OperationTable } from '../../http/operation.js';
import { policyLinks } from '../../store/queries/policy-tables.js';
import { linkedTo, list } from '../../crud/crud-handlers.js';
import { edgeRouter } from '../edge-router/edge-router.definition.js';
import { associatedService } from '../service/service.definition.js';
import { serviceEdgeRouterPolicy } from './service-edge-router-policy.definition.js';

export const serviceEdgeRouterPolicyLinkOperations: OperationTable<'management'> = {
  listServiceEdgeRouterPolicyEdgeRouters: list(edgeRouter, 'admin', {
    scope: linkedTo(serviceEdgeRouterPolicy, policyLinks.serviceEdgeRouterPolicyEdgeRouters),
  }),
  listServiceEdgeRouterPolicyServices: list(associatedService, 'admin', {
    scope: linkedTo(serviceEdgeRouterPolicy, policyLinks.serviceEdgeRouterPolicyServices),
  }),
};
