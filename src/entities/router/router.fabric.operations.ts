// `/fabric/v1/routers`: every router (edge routers included) with its control-channel state; deleting one is the
// same delete as `/routers` (upstream deletes the whole router whichever API is used).
import type { OperationContext, OperationTable } from '../../http/operation.js';
import { detail, fieldIs, list, remove, type ById } from '../../crud/crud-handlers.js';
import { fabricTerminator } from '../terminator/terminator.fabric.js';
import { fabricRouter } from './router.fabric.js';
import { router } from './router.definition.js';

export const fabricRouterOperations: OperationTable<'fabric'> = {
  listRouters: list(fabricRouter, 'admin'),
  detailRouter: detail(fabricRouter, 'admin'),
  deleteRouter: remove(router, 'admin'),
  // Upstream lists a missing router's terminators as an empty list, not 404 (ListAssociationWithHandler).
  listRouterTerminators: list(fabricTerminator, 'admin', {
    scope: ({ params }: OperationContext<ById>) => Promise.resolve(fieldIs(fabricTerminator, 'router', params.id)),
  }),
};
