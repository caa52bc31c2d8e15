// What a router's CreateTerminatorV2 and CreateCircuitV2 requests are checked against: the service session behind a
// token, the certificate fingerprints its API session may present, the router and the service.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { dialectOf, isStorableText, typed } from '../connection.js';
import { preparedQuery } from '../prepared.js';
import { parseJsonValue } from '../../lib/json-value.js';
import { isJsonObject } from '../../lib/object-path.js';
import type { Database } from '../schema.js';
import { edgeRouterSharedSql } from './service-access.js';
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

const selectApiSessionFingerprints = preparedQuery(
  (q, apiSessionId: string, identityId: string, at: string) =>
    sql<{
      fingerprints: string;
    }>`SELECT ${sessionFingerprintsJson(q, sql`${identityId}`, sql`${apiSessionId}`, at, '<')} AS fingerprints`,
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
  const [row] = await selectApiSessionFingerprints(db, apiSessionId, identityId, at);
  return row ? fingerprintsOf(row.fingerprints) : [];
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
  return row && toEdgeService(row);
}

/** A service row's columns as the router's checks use them. */
function toEdgeService(row: {
  id: string;
  name: string;
  terminator_strategy: string;
  encryption_required: number;
  max_idle_time_millis: number | string;
}): EdgeService {
  return {
    id: row.id,
    name: row.name,
    terminatorStrategy: row.terminator_strategy,
    encryptionRequired: Number(row.encryption_required) === 1,
    maxIdleTimeMillis: Number(row.max_idle_time_millis),
  };
}

/**
 * The fingerprints an API session's client may present (upstream's VisitFingerprintsForApiSession), as a subquery
 * answering a JSON array (fingerprintsOf reads it): the identity's certificate authenticators, then the session's
 * own certificates valid at `at` (`validFrom`: how the certificate's start compares with `at`).
 */
export function sessionFingerprintsJson(
  q: Kysely<Database>,
  identityId: RawBuilder<unknown>,
  apiSessionId: RawBuilder<unknown>,
  at: unknown,
  validFrom: '<' | '<=',
): RawBuilder<string> {
  return sql<string>`(SELECT ${dialectOf(q).jsonRows({ fingerprint: sql`f.fingerprint` }, sql`f.k`)} FROM (
      SELECT a.cert_fingerprint AS fingerprint, 0 AS k FROM authenticators a
        WHERE a.identity_id = ${identityId} AND a.method = 'cert' AND a.cert_fingerprint IS NOT NULL
      UNION ALL
      SELECT c.fingerprint AS fingerprint, 1 AS k FROM api_session_certificates c
        WHERE c.api_session_id = ${apiSessionId} AND c.valid_from ${sql.raw(validFrom)} ${at} AND c.valid_to > ${at}) f)`;
}

/** The fingerprints sessionFingerprintsJson answered. */
export function fingerprintsOf(json: string): string[] {
  const entries = parseJsonValue(json);
  return (Array.isArray(entries) ? entries.filter(isJsonObject) : []).map((entry) => String(entry.fingerprint));
}

/** Everything a router's session request is checked against (edge-requests.ts), read together. */
export interface EdgeSessionCheck {
  session: EdgeSession;
  /** The fingerprints its API session's client may present, as apiSessionFingerprints lists them. */
  fingerprints: string[];
  /** Both the identity's and the service's edge router policies grant the router. */
  routerShared: boolean;
  /** Undefined when the session's service is gone. */
  service: EdgeService | undefined;
}

interface EdgeSessionCheckRow extends EdgeSession {
  fingerprints: string;
  router_shared: number;
  service_name: string | null;
  terminator_strategy: string | null;
  encryption_required: number | null;
  max_idle_time_millis: number | string | null;
}

// One statement for what CreateCircuitV2 and CreateTerminatorV2 check (issue 33: five reads per dial before): the
// session and its identity's name, the fingerprints (apiSessionFingerprints' two reads), whether the router is shared
// (edgeRouterSharedSql) and the service (edgeServiceById).
const selectEdgeSessionCheck = preparedQuery(
  (q, token: string, at: string, routerId: string) => sql<EdgeSessionCheckRow>`SELECT s.id AS id, s.type AS type,
      s.api_session_id AS "apiSessionId", s.identity_id AS "identityId", i.name AS "identityName",
      s.service_id AS "serviceId",
      ${sessionFingerprintsJson(q, sql`s.identity_id`, sql`s.api_session_id`, at, '<')} AS fingerprints,
      CASE WHEN ${edgeRouterSharedSql(sql`i.seq`, sql`sv.seq`, routerId)} THEN 1 ELSE 0 END AS router_shared,
      sv.name AS service_name, sv.terminator_strategy AS terminator_strategy,
      sv.encryption_required AS encryption_required, sv.max_idle_time_millis AS max_idle_time_millis
    FROM sessions s JOIN identities i ON i.id = s.identity_id LEFT JOIN services sv ON sv.id = s.service_id
    WHERE s.token = ${token}`,
);

/** The session behind `token` with everything its checks need; undefined when there is none. */
export async function edgeSessionCheck(
  db: Db,
  token: string,
  at: string,
  routerId: string,
): Promise<EdgeSessionCheck | undefined> {
  if (!isStorableText(token)) return undefined;
  const [row] = await selectEdgeSessionCheck(db, token, at, routerId);
  if (!row) return undefined;
  return {
    session: {
      id: row.id,
      type: row.type,
      apiSessionId: row.apiSessionId,
      identityId: row.identityId,
      identityName: row.identityName,
      serviceId: row.serviceId,
    },
    fingerprints: fingerprintsOf(row.fingerprints),
    routerShared: Number(row.router_shared) === 1,
    service:
      row.service_name === null
        ? undefined
        : toEdgeService({
            id: row.serviceId,
            name: row.service_name,
            terminator_strategy: row.terminator_strategy ?? '',
            encryption_required: Number(row.encryption_required),
            max_idle_time_millis: row.max_idle_time_millis ?? 0,
          }),
  };
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
