// The management API's /auth-policies operations: generic CRUD, admin-only.
import type { OperationTable } from '../../http/operation.js';
import { create, detail, list, patch, remove, update } from '../../crud/crud-handlers.js';
import { authPolicy } from './auth-policy.definition.js';

export const authPolicyOperations: OperationTable<'management'> = {
  listAuthPolicies: list(authPolicy, 'admin'),
  createAuthPolicy: create(authPolicy, 'admin'),
  detailAuthPolicy: detail(authPolicy, 'admin'),
  updateAuthPolicy: update(authPolicy, 'admin'),
  patchAuthPolicy: patch(authPolicy, 'admin'),
  deleteAuthPolicy: remove(authPolicy, 'admin'),
};
