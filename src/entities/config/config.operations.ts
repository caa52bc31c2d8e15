// The management API's /configs operations: generic CRUD and the services a config is attached to, admin-only.
import { sql, type SqlBool } from 'kysely';
import type { OperationTable } from '../../http/operation.js';
import { create, detail, list, patch, remove, update } from '../../crud/crud-handlers.js';
import { requireEntity } from '../../crud/entity-writes.js';
import { service } from '../service/service.definition.js';
import { config } from './config.definition.js';

export const configOperations: OperationTable = {
  listConfigs: list(config, 'admin'),
  createConfig: create(config, 'admin'),
  detailConfig: detail(config, 'admin'),
  updateConfig: update(config, 'admin'),
  patchConfig: patch(config, 'admin'),
  deleteConfig: remove(config, 'admin'),
  listConfigServices: list(service, 'admin', {
    async scope(context, db) {
      const id = context.params.id as string;
      await requireEntity(db, config, id);
      return sql<SqlBool>`t.id IN (SELECT entity_id FROM service_configs WHERE value = ${id})`;
    },
  }),
};
