import type { OperationTable } from '../../http/operation.js';
import { create, detail, list, patch, remove, update } from '../../crud/crud-handlers.js';
import { servicePolicy } from './service-policy.definition.js';

export const servicePolicyOperations: OperationTable<'management'> = {
  listServicePolicies: list(servicePolicy, 'admin'),
  detailServicePolicy: detail(servicePolicy, 'admin'),
  createServicePolicy: create(servicePolicy, 'admin'),
  updateServicePolicy: update(servicePolicy, 'admin'),
  patchServicePolicy: patch(servicePolicy, 'admin'),
  deleteServicePolicy: remove(servicePolicy, 'admin'),
};
