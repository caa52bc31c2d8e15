// The informational operations both APIs share, bound by operationId.
import type { OperationTable } from '../http/operation.js';
import { listControllers } from './controllers.js';
import { listEnumeratedCapabilities, listProtocols, listSummary } from './informational.js';
import { detailSpec, detailSpecBody, listSpecs } from './specs.js';
import { listVersion } from './version.js';
import { listWellKnownCas } from './well-known.js';

const shared: OperationTable<'client' | 'management'> = {
  listRoot: listVersion,
  listVersion,
  listEnumeratedCapabilities,
  listSpecs,
  detailSpec,
  detailSpecBody,
  listControllers,
  listWellKnownCas,
};

export const clientSystemOperations: OperationTable<'client'> = { ...shared, listProtocols };
export const managementSystemOperations: OperationTable<'management'> = { ...shared, listSummary };
