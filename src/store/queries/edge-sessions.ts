// What a router's CreateTerminatorV2 and CreateCircuitV2 requests are checked against: the service session behind a
// token, the certificate fingerprints its API session may present, the router and the service.
import { isStorableText, typed } from '../connection.js';
import { preparedQuery } from '../prepared.js';
import type { Db } from '../store.js';

export interface EdgeSession {
  id: string;
  type: string;
  apiSessionId: string;
  identityId: string;
  identityName: string;
  serviceId: string;
}

const selectEdgeSessionByToken = preparedQuery((q, token: string) =>
  q
    .selectFrom('sessions as s')
    .innerJoin('identities as i', 'i.id', 's.identity_id')
    .select([
      's.id',
      's.type',
      's.api_session_id as apiSessionId',
      's.identity_id as identityId',
      'i.name as identityName',
      's.service_id as serviceId',
    ])
    .where('s.token', '=', token),
);

export async function edgeSessionByToken(db: Db, token: string): Promise<EdgeSession | undefined> {
  if (!isStorableText(token)) return undefined;
  return (await selectEdgeSessionByToken(db, token))[0];
}

const selectIdentityCertFingerprints = preparedQuery((q, identityId: string) =>
  q
    .selectFrom('authenticators')
    .select('cert_fingerprint as fingerprint')
    .where('identity_id', '=', identityId)
    .where('method', '=', 'cert')
    .where('cert_fingerprint', 'is not', null),
);

const selectSessionCertFingerprints = preparedQuery((q, apiSessionId: string, at: string) =>
  q
    .selectFrom('api_session_certificates')
    .select('fingerprint')
    .where('api_session_id', '=', apiSessionId)
    .where('valid_from', '<', at)
    .where('valid_to', '>', at),
);

/**
 * The fingerprints an API session's client may present (upstream's VisitFingerprintsForApiSession): the identity's
 * certificate authenticators, then the session's own certificates valid at `at`.
 */
export async function apiSessionFingerprints(
  db: Db,
  apiSessionId: string,
  identityId: string,
  at: string,
): Promise<string[]> {
  const authenticators = await selectIdentityCertFingerprints(db, identityId);
  const certificates = await selectSessionCertFingerprints(db, apiSessionId, at);
  return [...authenticators.map((row) => row.fingerprint!), ...certificates.map((row) => row.fingerprint)];
}

export interface EdgeService {
  id: string;
  name: string;
  terminatorStrategy: string;
  encryptionRequired: boolean;
  maxIdleTimeMillis: number;
}

const selectEdgeService = preparedQuery((q, id: string) =>
  q
    .selectFrom('services')
    .select(['id', 'name', 'terminator_strategy', 'encryption_required', 'max_idle_time_millis'])
    .where('id', '=', id),
);

/** By id; an id no row can hold (a router's CircuitRequest names services as it likes) finds nothing. */
export async function edgeServiceById(db: Db, id: string): Promise<EdgeService | undefined> {
  if (!isStorableText(id)) return undefined;
  const [row] = await selectEdgeService(db, id);
  return (
    row && {
      id: row.id,
      name: row.name,
      terminatorStrategy: row.terminator_strategy,
      encryptionRequired: row.encryption_required === 1,
      maxIdleTimeMillis: Number(row.max_idle_time_millis),
    }
  );
}

const selectRouterName = preparedQuery((q, id: string) => q.selectFrom('routers').select('name').where('id', '=', id));

export async function routerNameById(db: Db, id: string): Promise<string | undefined> {
  return (await selectRouterName(db, id))[0]?.name;
}

/** By name, as the router's tunneler names services (ReadByName). */
export async function edgeServiceByName(db: Db, name: string): Promise<EdgeService | undefined> {
  if (!isStorableText(name)) return undefined;
  const row = await typed(db).selectFrom('services').select('id').where('name', '=', name).executeTakeFirst();
  return row && edgeServiceById(db, row.id);
}
