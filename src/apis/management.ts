// The management API's operation table: every bound operationId, assembled from the *.operations.ts files.
import type { OperationTable } from '../http/operation.js';
import { managementSystemOperations } from '../system/system.operations.js';
import { identityTypeOperations } from '../entities/identity-type/identity-type.operations.js';
import { managementAuthOperations } from '../auth/auth.operations.js';

export const managementOperations: OperationTable = {
  ...managementSystemOperations,
  ...managementAuthOperations,
  ...identityTypeOperations,
};
