// An edge router policy's members, read from the membership tables the policy engine maintains.
import type { OperationTable } from '../../http/operation.js';
import type { TableName } from '../../store/store.js';
import { linkedTo, list } from '../../crud/crud-handlers.js';
import { edgeRouter } from '../edge-router/edge-router.definition.js';
import { identity } from '../identity/identity.definition.js';
import { edgeRouterPolicy } from './edge-router-policy.definition.js';

const members = (table: TableName) => linkedTo(edgeRouterPolicy, { table, parentColumn: 'policy_id', childColumn: 'entity_id' });

export const edgeRouterPolicyLinkOperations: OperationTable<'management'> = {
  listEdgeRouterPolicyEdgeRouters: list(edgeRouter, 'admin', { scope: members('edge_router_policy_edge_routers') }),
  listEdgeRouterPolicyIdentities: list(identity, 'admin', { scope: members('edge_router_policy_identities') }),
};
