// The fabric management API's operation table (`/fabric/v1`, what `ziti fabric` calls); the rest answer 501.
import type { OperationTable } from '../http/operation.js';
import { fabricRouterOperations } from '../entities/router/router.fabric.operations.js';
import { fabricServiceOperations } from '../entities/service/service.fabric.operations.js';
import { fabricTerminatorOperations } from '../entities/terminator/terminator.fabric.operations.js';
import { linkOperations } from '../entities/network/link.operations.js';
import { circuitOperations } from '../entities/network/circuit.operations.js';
import { databaseOperations, fabricDatabaseOperations } from '../integrity/database.operations.js';
import { inspectionOperations } from '../entities/network/inspection.operations.js';

export const fabricOperations: OperationTable<'fabric'> = {
  ...fabricRouterOperations,
  ...fabricServiceOperations,
  ...fabricTerminatorOperations,
  ...linkOperations,
  ...circuitOperations,
  ...databaseOperations,
  ...fabricDatabaseOperations,
  ...inspectionOperations,
};
