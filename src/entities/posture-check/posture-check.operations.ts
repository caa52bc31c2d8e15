// The management API's /posture-checks operations and their role-attribute list: generic CRUD, admin-only.
import type { OperationTable } from '../../http/operation.js';
import { create, detail, list, listSetField, patch, remove, update } from '../../crud/crud-handlers.js';
import { postureCheck } from './posture-check.definition.js';
import { roleFilterScope } from '../../crud/role-filter.js';

export const postureCheckOperations: OperationTable<'management'> = {
  listPostureChecks: list(postureCheck, 'admin', { scope: roleFilterScope(postureCheck) }),
  createPostureCheck: create(postureCheck, 'admin'),
  detailPostureCheck: detail(postureCheck, 'admin'),
  updatePostureCheck: update(postureCheck, 'admin'),
  patchPostureCheck: patch(postureCheck, 'admin'),
  deletePostureCheck: remove(postureCheck, 'admin'),
  listPostureCheckRoleAttributes: listSetField(postureCheck, 'roleAttributes', 'admin'),
};
