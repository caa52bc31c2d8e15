// What a session create (`POST /sessions`) reads, in one statement (issue 26.3): the session the API session
// already holds for the service and type, the service with the identity's pair counts, the service policies linking
// the two with their posture checks, and the edge routers both sides are granted with their presence. One statement
// is one round trip on PostgreSQL, where the create's turn otherwise waited on six, and one snapshot of all of it.
import { sql } from 'kysely';
import { dialectOf } from '../connection.js';
import { preparedQuery } from '../prepared.js';
import type { Db } from '../store.js';
import type { Row } from './entities.js';
import { policiesLinkingSql, type PolicyLinkRow, type PostureCheckRow } from './posture.js';
import type { RouterPresenceRow } from './router-presence.js';
import { sharedEdgeRoutersSql, type SharedRouterRow } from './service-access.js';
import { parseJsonValue } from '../../lib/json-value.js';
import { isJsonObject } from '../../lib/object-path.js';

/** A shared edge router with its presence row (undefined: it never connected). */
export interface SharedRouterWithPresence {
  router: SharedRouterRow;
  presence: RouterPresenceRow | undefined;
}

export interface SessionCreateReads {
  /** The session row the API session already holds for the service and type, if any (upstream's reuse). */
  reusable: Row | undefined;
  /** The service's name and the identity's pair counts (null: no policy grants it); undefined: no such service. */
  service: { name: string; dial: number | null; bind: number | null } | undefined;
  /** As servicePoliciesLinking for the one service, by policy id. */
  policies: PolicyLinkRow[];
  /** As postureChecksOfPolicies for those policies, by check id. */
  checks: PostureCheckRow[];
  /** As sharedEdgeRouterRows: up to `routerLimit`, connected ones first, then by id. */
  routers: SharedRouterWithPresence[];
}

interface CombinedRow extends Row {
  service_name: string | null;
  pair_dial: number | null;
  pair_bind: number | null;
  policies: string;
  checks: string;
  routers: string;
}

// The lists come as JSON arrays (dialect.jsonRows); the reusable session's columns are the row's own (`ss.*`), the
// other columns' names are none of a session's.
const selectSessionCreateReads = preparedQuery(
  (q, identityId: string, apiSessionId: string, serviceId: string, type: string, routerLimit: number) => {
    const dialect = dialectOf(q);
    const policy = { policyId: sql`l.policy_id`, name: sql`l.name`, type: sql`l.type` };
    const check = {
      policyId: sql`m.policy_id`,
      id: sql`c.id`,
      name: sql`c.name`,
      typeId: sql`c.type_id`,
      createdAt: sql`c.created_at`,
      updatedAt: sql`c.updated_at`,
      tags: sql`c.tags`,
      details: sql`c.details`,
    };
    const router = {
      id: sql`r.id`,
      name: sql`r.name`,
      cost: sql`r.cost`,
      no_traversal: sql`r.no_traversal`,
      disabled: sql`r.disabled`,
      router_id: sql`pr.router_id`,
      instance_id: sql`pr.instance_id`,
      connected_at: sql`pr.connected_at`,
      version_info: sql`pr.version_info`,
      link_listeners: sql`pr.link_listeners`,
      hostname: sql`pr.hostname`,
      supported_protocols: sql`pr.supported_protocols`,
      sync_status: sql`pr.sync_status`,
    };
    return sql<CombinedRow>`WITH linking AS (
        SELECT ps.policy_id AS policy_id, p.name AS name, p.type AS type ${policiesLinkingSql(identityId, sql`(${serviceId})`)}),
      shared AS (${sharedEdgeRoutersSql(identityId, serviceId, routerLimit)})
      SELECT sv.name AS service_name, pair.dial AS pair_dial, pair.bind AS pair_bind,
        (SELECT ${dialect.jsonRows(policy, sql`l.policy_id`)} FROM linking l) AS policies,
        (SELECT ${dialect.jsonRows(check, sql`c.id`)} FROM linking l
          JOIN service_policy_posture_checks m ON m.policy_id = l.policy_id JOIN posture_checks c ON c.id = m.entity_id) AS checks,
        (SELECT ${dialect.jsonRows(router, sql`r.offline, r.id`)} FROM shared r LEFT JOIN live_router_presence pr ON pr.router_id = r.id) AS routers,
        ss.*
      FROM (SELECT 1 AS anchor) AS anchor
        LEFT JOIN services sv ON sv.id = ${serviceId}
        LEFT JOIN identity_services pair ON pair.service_seq = sv.seq AND pair.identity_seq = (SELECT seq FROM identities WHERE id = ${identityId})
        LEFT JOIN sessions ss ON ss.api_session_id = ${apiSessionId} AND ss.service_id = ${serviceId} AND ss.type = ${type}`;
  },
);

/** Everything a session create of `type` by the identity's API session for the service reads, in one statement. */
export async function sessionCreateReads(
  db: Db,
  identityId: string,
  apiSessionId: string,
  serviceId: string,
  type: string,
  routerLimit: number,
): Promise<SessionCreateReads> {
  const [row] = await selectSessionCreateReads(db, identityId, apiSessionId, serviceId, type, routerLimit);
  if (!row) throw new Error('the session create read answered no row');
  const { service_name: name, pair_dial: dial, pair_bind: bind, policies, checks, routers, ...session } = row;
  return {
    reusable: session.id === null || session.id === undefined ? undefined : session,
    service: name === null ? undefined : { name, dial, bind },
    policies: objectsOf(policies).map((entry) => ({
      policyId: text(entry.policyId),
      name: text(entry.name),
      serviceId,
      type: Number(entry.type),
    })),
    checks: objectsOf(checks).map((entry) => ({
      policyId: text(entry.policyId),
      id: text(entry.id),
      name: text(entry.name),
      typeId: text(entry.typeId),
      createdAt: text(entry.createdAt),
      updatedAt: text(entry.updatedAt),
      tags: text(entry.tags),
      details: text(entry.details),
    })),
    routers: objectsOf(routers).map((entry) => ({
      router: {
        id: text(entry.id),
        name: text(entry.name),
        cost: numberOrNull(entry.cost),
        no_traversal: numberOrNull(entry.no_traversal),
        disabled: numberOrNull(entry.disabled),
      },
      presence: entry.router_id === null ? undefined : presenceOf(entry),
    })),
  };
}

function presenceOf(entry: Record<string, unknown>): RouterPresenceRow {
  return {
    router_id: text(entry.router_id),
    instance_id: textOrNull(entry.instance_id),
    connected_at: textOrNull(entry.connected_at),
    version_info: textOrNull(entry.version_info),
    link_listeners: textOrNull(entry.link_listeners),
    hostname: textOrNull(entry.hostname),
    supported_protocols: textOrNull(entry.supported_protocols),
    sync_status: textOrNull(entry.sync_status),
  };
}

// The JSON is the statement's own: every value is of its column's type, so these only narrow `unknown`.
const objectsOf = (json: string): Record<string, unknown>[] => {
  const value = parseJsonValue(json);
  return Array.isArray(value) ? value.filter(isJsonObject) : [];
};
const text = (value: unknown): string =>
  typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
const textOrNull = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const numberOrNull = (value: unknown): number | null => (typeof value === 'number' ? value : null);
