import type { OperationTable } from '../../http/operation.js';
import { detail, list } from '../../crud/crud-handlers.js';
import { identityType } from './identity-type.definition.js';

export const identityTypeOperations: OperationTable<'management'> = {
  listIdentityTypes: list(identityType, 'admin'),
  detailIdentityType: detail(identityType, 'admin'),
};
