// What admins see of an identity's posture (ziti `routes/posture_data_api_model.go`): the reported data with its
// per-API-session part, and the session requests its posture got refused (oldest first, at most 100).
import { envelope } from '../http/envelope.js';
import type { OperationHandler, OperationTable } from '../http/operation.js';
import { formatTimestamp } from '../lib/clock.js';
import { apiSessionIdsOf } from '../store/queries/api-sessions.js';
import { identityExists } from '../store/queries/identities.js';
import type { Db } from '../store/store.js';
import type { MfaStateReader } from './posture-inputs.js';
import { loadPosture, type IdentityPosture } from './reported-posture.js';
import { omitEmpty } from '../lib/omit-empty.js';

const timestampOrNull = (at: Date | undefined) => (at ? formatTimestamp(at) : null);

/** The common part of each reported kind; never reported means no time and no check id. */
const base = (report: { postureCheckId: string; lastUpdatedAt: Date } | undefined) => ({
  lastUpdatedAt: timestampOrNull(report?.lastUpdatedAt),
  postureCheckId: report?.postureCheckId ?? '',
  // No posture data times out in this version (upstream never marks any).
  timedOut: false,
});

/** Every live API session of the identity, with its MFA state and the endpoint state it reported. */
async function apiSessionPostureData(
  db: Db,
  readMfa: MfaStateReader,
  identityId: string,
  data: IdentityPosture | undefined,
): Promise<Record<string, unknown>> {
  const entries: [string, unknown][] = [];
  for (const id of await apiSessionIdsOf(db, [identityId])) {
    const mfa = await readMfa(db, identityId, id);
    const passedAt = mfa.isEnrolled ? mfa.passedAt : undefined;
    const state = data?.endpointStates.get(id);
    entries.push([
      id,
      {
        endpointState: { unlockedAt: timestampOrNull(state?.unlockedAt), wokenAt: timestampOrNull(state?.wokenAt) },
        // Upstream's mapper never fills the two prompt results; they depend on a check, which this has none of.
        mfa: {
          apiSessionId: id,
          passedAt: timestampOrNull(passedAt),
          passedMfa: passedAt !== undefined,
          passedOnUnlock: null,
          passedOnWake: null,
        },
      },
    ]);
  }
  return Object.fromEntries(entries);
}

/**
 * Upstream does not check the identity: an unknown one answers an empty document. Data of a deleted identity,
 * not yet pruned from memory, is not shown.
 */
async function postureOf(
  db: Db,
  readMfa: MfaStateReader,
  identityId: string,
  data: IdentityPosture | undefined,
): Promise<Record<string, unknown>> {
  return {
    apiSessionPostureData: await apiSessionPostureData(db, readMfa, identityId, data),
    domain: { ...base(data?.domain), domain: data?.domain?.domain ?? null },
    mac: { ...base(data?.mac), addresses: data?.mac?.addresses ?? null },
    os: {
      ...base(data?.os),
      build: data?.os ? data.os.build : null,
      type: data?.os?.type ?? null,
      version: data?.os?.version ?? null,
    },
    // An empty hash and a stopped process are left out, as upstream's model does (omitempty).
    processes: (data?.processes ?? []).map((process) => ({
      ...base(process),
      ...omitEmpty({ binaryHash: process.hash, isRunning: process.isRunning }),
      signerFingerprints: process.signerFingerprints,
    })),
  };
}

const getIdentityPostureData: OperationHandler<'getIdentityPostureData'> = {
  access: 'admin',
  async handle({ deps, params: { id } }) {
    const data = await deps.store.read(async (db) =>
      postureOf(
        db,
        deps.posture.readMfaState,
        id,
        (await identityExists(db, id)) ? await loadPosture(db, id) : undefined,
      ),
    );
    return { status: 200, json: envelope(data) };
  },
};

const getIdentityFailedServiceRequests: OperationHandler<'getIdentityFailedServiceRequests'> = {
  access: 'admin',
  async handle({ deps, params: { id } }) {
    const failures = await deps.store.read(async (db) =>
      (await identityExists(db, id)) ? (await loadPosture(db, id))?.failedServiceRequests : undefined,
    );
    return { status: 200, json: envelope(failures ?? []) };
  },
};

export const identityPostureOperations: OperationTable<'management'> = {
  getIdentityPostureData,
  getIdentityFailedServiceRequests,
};
