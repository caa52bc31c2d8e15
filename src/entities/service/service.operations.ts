// Service operations: management CRUD, a service's configs, role attributes; the client's admin-only writes.
import type { OperationTable } from '../../http/operation.js';
import { create, detail, linkedTo, list, listSetField, patch, remove, update } from '../../crud/crud-handlers.js';
import { roleFilterScope } from '../../crud/role-filter.js';
import { policyLinks } from '../../store/queries/policy-tables.js';
import { config } from '../config/config.definition.js';
import { service } from './service.definition.js';

const writes: OperationTable<'client' | 'management'> = {
  updateService: update(service, 'admin'),
  patchService: patch(service, 'admin'),
  deleteService: remove(service, 'admin'),
};

export const serviceOperations: OperationTable<'management'> = {
  ...writes,
  // TODO(a later issue): `asIdentity` and `?configTypes=` on the management list (upstream reads them; the
  // client list already expands configs per identity).
  listServices: list(service, 'admin', { scope: roleFilterScope(service) }),
  createService: create(service, 'admin'),
  detailService: detail(service, 'admin'),
  listServiceConfig: list(config, 'admin', { scope: linkedTo(service, policyLinks.serviceConfigs) }),
  listServiceRoleAttributes: listSetField(service, 'roleAttributes', 'admin'),
};

/**
 * The client API's PUT, PATCH and DELETE `/services/{id}`: admins only, exactly the management operations.
 * Its list and detail are identity-scoped and arrive with the policy engine.
 */
export const clientServiceOperations: OperationTable<'client'> = writes;
