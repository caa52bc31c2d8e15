// `/fabric/v1/services`: every service with its fabric fields; deleting one is the edge APIs' delete (upstream's
// fabric and edge service stores are one store).
import type { OperationTable } from '../../http/operation.js';
import { childrenOf, detail, list, remove } from '../../crud/crud-handlers.js';
import { fabricTerminator } from '../terminator/terminator.fabric.js';
import { fabricService } from './service.fabric.js';
import { service } from './service.definition.js';

export const fabricServiceOperations: OperationTable = {
  listServices: list(fabricService, 'admin'),
  detailService: detail(fabricService, 'admin'),
  deleteService: remove(service, 'admin'),
  listServiceTerminators: list(fabricTerminator, 'admin', { scope: childrenOf(fabricService, 'service_id') }),
};
