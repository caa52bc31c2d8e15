// A service edge router policy's members, read from the membership tables the policy engine maintains.
import type { OperationTable } from '../../http/operation.js';
import type { TableName } from '../../store/store.js';
import { linkedTo, list } from '../../crud/crud-handlers.js';
import { edgeRouter } from '../edge-router/edge-router.definition.js';
import { associatedService } from '../service/service.definition.js';
import { serviceEdgeRouterPolicy } from './service-edge-router-policy.definition.js';

const members = (table: TableName) => linkedTo(serviceEdgeRouterPolicy, { table, parentColumn: 'policy_id', childColumn: 'entity_id' });

export const serviceEdgeRouterPolicyLinkOperations: OperationTable<'management'> = {
  listServiceEdgeRouterPolicyEdgeRouters: list(edgeRouter, 'admin', { scope: members('service_edge_router_policy_edge_routers') }),
  listServiceEdgeRouterPolicyServices: list(associatedService, 'admin', { scope: members('service_edge_router_policy_services') }),
};
