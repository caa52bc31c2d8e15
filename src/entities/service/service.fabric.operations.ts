// `/fabric/v1/services`: every service with its fabric fields; deleting one is the edge APIs' delete (upstream's
// fabric and edge service stores are one store).
import type { OperationContext, OperationTable } from '../../http/operation.js';
import { detail, fieldIs, list, remove, type ById } from '../../crud/crud-handlers.js';
import { fabricTerminator } from '../terminator/terminator.fabric.js';
import { fabricService } from './service.fabric.js';
import { service } from './service.definition.js';

export const fabricServiceOperations: OperationTable<'fabric'> = {
  listServices: list(fabricService, 'admin'),
  detailService: detail(fabricService, 'admin'),
  deleteService: remove(service, 'admin'),
  // Upstream lists a missing service's terminators as an empty list, not 404 (ListAssociationWithHandler).
  listServiceTerminators: list(fabricTerminator, 'admin', {
    scope: ({ params }: OperationContext<ById>) => Promise.resolve(fieldIs(fabricTerminator, 'service', params.id)),
  }),
};
