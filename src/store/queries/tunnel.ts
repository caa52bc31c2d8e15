// What a router's own tunneler is answered from (ziti controller/handler_edge_ctrl/common_tunnel.go): the router's
// identity with its hosting defaults, its newest API session, a session by id, and the services it may use.
import { sql } from 'kysely';
import { typed } from '../connection.js';
import type { Db } from '../store.js';
import type { ApiSessionRow } from './api-sessions.js';

export interface TunnelIdentityRow {
  id: string;
  name: string;
  type_id: string;
  app_data: string | null;
  default_hosting_cost: number;
  default_hosting_precedence: string;
  service_hosting_costs: string | null;
  service_hosting_precedences: string | null;
  env_info: string | null;
  sdk_info: string | null;
}

/** The identity with the router's id (of any type: the caller checks it is the router's own). */
export async function tunnelIdentity(db: Db, routerId: string): Promise<TunnelIdentityRow | undefined> {
  return typed(db)
    .selectFrom('identities')
    .select([
      'id',
      'name',
      'type_id',
      'app_data',
      'default_hosting_cost',
      'default_hosting_precedence',
      'service_hosting_costs',
      'service_hosting_precedences',
      'env_info',
      'sdk_info',
    ])
    .where('id', '=', routerId)
    .executeTakeFirst();
}

/**
 * The identity's newest API session: upstream keeps the tunneler's in an `apiSessionId` annotation on the identity;
 * a router identity has no authenticator to log in with, so every API session it has is its tunneler's.
 */
export async function newestApiSessionOf(db: Db, identityId: string): Promise<ApiSessionRow | undefined> {
  return typed(db)
    .selectFrom('api_sessions')
    .selectAll()
    .where('identity_id', '=', identityId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .executeTakeFirst();
}

export interface TunnelSessionRow {
  id: string;
  token: string;
  api_session_id: string;
  identity_id: string;
  service_id: string;
  type: string;
}

export async function tunnelSessionById(db: Db, id: string): Promise<TunnelSessionRow | undefined> {
  return typed(db)
    .selectFrom('sessions')
    .select(['id', 'token', 'api_session_id', 'identity_id', 'service_id', 'type'])
    .where('id', '=', id)
    .executeTakeFirst();
}

export interface TunnelServiceRow {
  id: string;
  name: string;
  encryption_required: number;
  tags: string;
  dial: number;
  bind: number;
}

/** Every service a policy lets the identity dial or bind (its `identity_services` pairs), by name. */
export async function tunnelServices(db: Db, identityId: string): Promise<TunnelServiceRow[]> {
  const { rows } = await sql<TunnelServiceRow>`SELECT s.id AS id, s.name AS name,
      s.encryption_required AS encryption_required, s.tags AS tags, p.dial AS dial, p.bind AS bind
    FROM identities i JOIN identity_services p ON p.identity_seq = i.seq JOIN services s ON s.seq = p.service_seq
    WHERE i.id = ${identityId} ORDER BY s.name`.execute(db);
  return rows;
}
