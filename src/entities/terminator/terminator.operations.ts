// Terminator operations: management CRUD, and a service's terminators on both APIs.
import type { OperationTable } from '../../http/operation.js';
import { childrenOf, create, detail, list, patch, remove, update } from '../../crud/crud-handlers.js';
import { service } from '../service/service.definition.js';
import { terminator } from './terminator.definition.js';

export const terminatorOperations: OperationTable<'management'> = {
  listTerminators: list(terminator, 'admin'),
  detailTerminator: detail(terminator, 'admin'),
  createTerminator: create(terminator, 'admin'),
  updateTerminator: update(terminator, 'admin'),
  patchTerminator: patch(terminator, 'admin'),
  deleteTerminator: remove(terminator, 'admin'),
  listServiceTerminators: list(terminator, 'admin', { scope: childrenOf(service, terminator, 'service') }),
};
