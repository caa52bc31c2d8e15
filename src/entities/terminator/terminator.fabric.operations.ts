// `/fabric/v1/terminators`: every terminator with its fabric fields; deleting one is the edge APIs' delete.
import type { OperationTable } from '../../http/operation.js';
import { detail, list, remove } from '../../crud/crud-handlers.js';
import { fabricTerminator } from './terminator.fabric.js';
import { terminator } from './terminator.definition.js';

export const fabricTerminatorOperations: OperationTable<'fabric'> = {
  listTerminators: list(fabricTerminator, 'admin'),
  detailTerminator: detail(fabricTerminator, 'admin'),
  deleteTerminator: remove(terminator, 'admin'),
};
