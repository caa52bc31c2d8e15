// The management API's /configs operations: generic CRUD and the services a config is attached to, admin-only.
import type { OperationTable } from '../../http/operation.js';
import { create, detail, linkedTo, list, patch, remove, update } from '../../crud/crud-handlers.js';
import { policyLinks } from '../../store/queries/policy-tables.js';
import { associatedService } from '../service/service.definition.js';
import { config } from './config.definition.js';

export const configOperations: OperationTable<'management'> = {
  listConfigs: list(config, 'admin'),
  createConfig: create(config, 'admin'),
  detailConfig: detail(config, 'admin'),
  updateConfig: update(config, 'admin'),
  patchConfig: patch(config, 'admin'),
  deleteConfig: remove(config, 'admin'),
  listConfigServices: list(associatedService, 'admin', { scope: linkedTo(config, policyLinks.configServices) }),
};
