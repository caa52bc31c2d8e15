import type { OperationTable } from '../../http/operation.js';
import { create, detail, list, patch, remove, update } from '../../crud/crud-handlers.js';
import { edgeRouterPolicy } from './edge-router-policy.definition.js';

export const edgeRouterPolicyOperations: OperationTable<'management'> = {
  listEdgeRouterPolicies: list(edgeRouterPolicy, 'admin'),
  detailEdgeRouterPolicy: detail(edgeRouterPolicy, 'admin'),
  createEdgeRouterPolicy: create(edgeRouterPolicy, 'admin'),
  updateEdgeRouterPolicy: update(edgeRouterPolicy, 'admin'),
  patchEdgeRouterPolicy: patch(edgeRouterPolicy, 'admin'),
  deleteEdgeRouterPolicy: remove(edgeRouterPolicy, 'admin'),
};
