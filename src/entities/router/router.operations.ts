// `/routers` and `/transit-routers`: the same operations over the same routers, admin-only.
import type { OperationTable } from '../../http/operation.js';
import { create, detail, list, patch, remove, update } from '../../crud/crud-handlers.js';
import { router } from './router.definition.js';

export const routerOperations: OperationTable<'management'> = {
  listRouters: list(router, 'admin'),
  createRouter: create(router, 'admin'),
  detailRouter: detail(router, 'admin'),
  updateRouter: update(router, 'admin'),
  patchRouter: patch(router, 'admin'),
  deleteRouter: remove(router, 'admin'),
  listTransitRouters: list(router, 'admin'),
  createTransitRouter: create(router, 'admin'),
  detailTransitRouter: detail(router, 'admin'),
  updateTransitRouter: update(router, 'admin'),
  patchTransitRouter: patch(router, 'admin'),
  deleteTransitRouter: remove(router, 'admin'),
};
