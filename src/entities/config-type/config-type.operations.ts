// The management API's /config-types operations: generic CRUD and the configs of a type, admin-only.
import type { OperationTable } from '../../http/operation.js';
import { childrenOf, create, detail, list, patch, remove, update } from '../../crud/crud-handlers.js';
import { config } from '../config/config.definition.js';
import { configType } from './config-type.definition.js';

export const configTypeOperations: OperationTable<'management'> = {
  listConfigTypes: list(configType, 'admin'),
  createConfigType: create(configType, 'admin'),
  detailConfigType: detail(configType, 'admin'),
  updateConfigType: update(configType, 'admin'),
  patchConfigType: patch(configType, 'admin'),
  deleteConfigType: remove(configType, 'admin'),
  listConfigsForConfigType: list(config, 'admin', { scope: childrenOf(configType, config, 'configTypeId') }),
};
