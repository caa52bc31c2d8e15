import type { OperationTable } from '../../http/operation.js';
import { create, detail, list, patch, remove, update } from '../../crud/crud-handlers.js';
import { serviceEdgeRouterPolicy } from './service-edge-router-policy.definition.js';

export const serviceEdgeRouterPolicyOperations: OperationTable<'management'> = {
  listServiceEdgeRouterPolicies: list(serviceEdgeRouterPolicy, 'admin'),
  detailServiceEdgeRouterPolicy: detail(serviceEdgeRouterPolicy, 'admin'),
  createServiceEdgeRouterPolicy: create(serviceEdgeRouterPolicy, 'admin'),
  updateServiceEdgeRouterPolicy: update(serviceEdgeRouterPolicy, 'admin'),
  patchServiceEdgeRouterPolicy: patch(serviceEdgeRouterPolicy, 'admin'),
  deleteServiceEdgeRouterPolicy: remove(serviceEdgeRouterPolicy, 'admin'),
};
