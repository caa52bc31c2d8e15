// A service's policy-derived sub-lists, read from the link tables the policy engine maintains.
import type { OperationTable } from '../../http/operation.js';
import { linkedTo, list } from '../../crud/crud-handlers.js';
import { edgeRouter } from '../edge-router/edge-router.definition.js';
import { identity } from '../identity/identity.definition.js';
import { policyTypeCount } from '../identity/identity.links.operations.js';
import { serviceEdgeRouterPolicy } from '../service-edge-router-policy/service-edge-router-policy.definition.js';
import { servicePolicy } from '../service-policy/service-policy.definition.js';
import { service } from './service.definition.js';

export const serviceLinkOperations: OperationTable<'management'> = {
  listServiceIdentities: list(identity, 'admin', {
    scope: linkedTo(service, {
      table: 'identity_services',
      parentTable: 'services',
      parentColumn: 'service_seq',
      childColumn: 'identity_seq',
      positiveCount: policyTypeCount,
    }),
  }),
  listServiceEdgeRouters: list(edgeRouter, 'admin', {
    scope: linkedTo(service, { table: 'service_edge_routers', parentTable: 'services', parentColumn: 'service_seq', childColumn: 'edge_router_seq' }),
  }),
  listServiceServicePolicies: list(servicePolicy, 'admin', {
    scope: linkedTo(service, { table: 'service_policy_services', parentColumn: 'entity_id', childColumn: 'policy_id' }),
  }),
  listServiceServiceEdgeRouterPolicies: list(serviceEdgeRouterPolicy, 'admin', {
    scope: linkedTo(service, { table: 'service_edge_router_policy_services', parentColumn: 'entity_id', childColumn: 'policy_id' }),
  }),
};
