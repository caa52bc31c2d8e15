// The management API's /posture-check-types operations: list and detail, admin-only.
import type { OperationTable } from '../../http/operation.js';
import { detail, list } from '../../crud/crud-handlers.js';
import { postureCheckType } from './posture-check-type.definition.js';

export const postureCheckTypeOperations: OperationTable<'management'> = {
  listPostureCheckTypes: list(postureCheckType, 'admin'),
  detailPostureCheckType: detail(postureCheckType, 'admin'),
};
