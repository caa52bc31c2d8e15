// Service operations: management CRUD, a service's configs, role attributes; the client's admin-only writes.
import { sql, type SqlBool } from 'kysely';
import type { OperationTable } from '../../http/operation.js';
import { create, detail, list, listSetField, patch, remove, update } from '../../crud/crud-handlers.js';
import { requireEntity } from '../../crud/entity-writes.js';
import { roleFilterScope } from '../../crud/role-filter.js';
import { config } from '../config/config.definition.js';
import { service } from './service.definition.js';

const writes: OperationTable = {
  updateService: update(service, 'admin'),
  patchService: patch(service, 'admin'),
  deleteService: remove(service, 'admin'),
};

export const serviceOperations: OperationTable = {
  ...writes,
  // TODO(policy engine): `asIdentity` and per-identity permissions and config expansion, as the client list.
  listServices: list(service, 'admin', { scope: roleFilterScope(service) }),
  createService: create(service, 'admin'),
  detailService: detail(service, 'admin'),
  listServiceConfig: list(config, 'admin', {
    async scope(context, db) {
      const id = context.params.id as string;
      await requireEntity(db, service, id);
      return sql<SqlBool>`t.id IN (SELECT value FROM service_configs WHERE entity_id = ${id})`;
    },
  }),
  listServiceRoleAttributes: listSetField(service, 'roleAttributes', 'admin'),
};

/**
 * The client API's PUT, PATCH and DELETE `/services/{id}`: admins only, exactly the management operations.
 * Its list and detail are identity-scoped and arrive with the policy engine.
 */
export const clientServiceOperations: OperationTable = writes;
