import type { OperationTable } from '../../http/operation.js';
import { detail, list } from '../../crud/crud-handlers.js';
import { entityChange } from './entity-change.definition.js';

/** Admins read the record of changes; filters, sort and paging are every list's (e.g. `entityId = "…"`). */
export const entityChangeOperations: OperationTable<'management'> = {
  listEntityChanges: list(entityChange, 'admin'),
  detailEntityChange: detail(entityChange, 'admin'),
};
