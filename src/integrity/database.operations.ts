// Database operations: integrity check and fix (202, one scan at a time), their results, and snapshots.
import { ApiError } from '../errors/api-error.js';
import { emptyEnvelope, envelopeOf } from '../http/envelope.js';
import type { OperationHandler, OperationTable } from '../http/operation.js';

/** 202 and the scan runs on; a second scan while one runs is refused as upstream does (429 RATE_LIMITED). */
const startScan = (fix: boolean): OperationHandler => ({
  access: 'admin',
  handle({ deps, api }) {
    if (!deps.integrityChecks.start(fix)) return Promise.reject(new ApiError('RATE_LIMITED'));
    return Promise.resolve({ status: 202, json: emptyEnvelope(api) });
  },
});

const dataIntegrityResults: OperationHandler = {
  access: 'admin',
  handle({ deps, api }) {
    const status = deps.integrityChecks.status;
    // Upstream's fixed pagination for this one list: everything, no filterable fields.
    const pagination = { limit: -1, offset: 0, totalCount: status.results?.length ?? 0 };
    return Promise.resolve({ status: 200, json: envelopeOf(api, status, { pagination }) });
  },
};

const createDatabaseSnapshot: OperationHandler = {
  access: 'admin',
  async handle({ deps, api }) {
    await deps.snapshots.create();
    return { status: 200, json: emptyEnvelope(api) };
  },
};

/**
 * The fabric's `POST /database/snapshot` (`ziti fabric db snapshot [path]`): a snapshot written where the admin names
 * on the controller's disk (upstream's own rule: admin only), answered with the path written.
 */
const createDatabaseSnapshotWithPath: OperationHandler<'createDatabaseSnapshotWithPath', 'fabric'> = {
  access: 'admin',
  async handle({ deps, body, api }) {
    const path = await deps.snapshots.createAt(body.path ?? '');
    return { status: 200, json: envelopeOf(api, { path }) };
  },
};

/** The fabric API's database operations: the four both APIs share and the snapshot with a path. */
export const fabricDatabaseOperations: OperationTable<'fabric'> = { createDatabaseSnapshotWithPath };

/**
 * The same four on both APIs (`/edge/management/v1/database/…` and `/fabric/v1/database/…`): one scan state and one
 * snapshot rule per controller.
 */
export const databaseOperations: OperationTable<'management' | 'fabric'> = {
  checkDataIntegrity: startScan(false),
  fixDataIntegrity: startScan(true),
  dataIntegrityResults,
  createDatabaseSnapshot,
};
