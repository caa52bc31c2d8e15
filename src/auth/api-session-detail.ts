// Renders API sessions: the computed fields every session view shares, and `currentApiSessionDetail`, the
// shape authenticate and current-api-session return.
import type { Db } from '../store/store.js';
import type { ApiSessionRow } from '../store/queries/api-sessions.js';
import type { ApiSessions } from './api-sessions.js';
import type { AuthQuery } from './auth-queries.js';
import { identityRef, identityRefs } from './identity-links.js';

export interface SessionForDetail {
  id: string;
  identityId: string;
  lastActivityAt: string;
}

/**
 * Fields computed from other tables or from memory, for a page of sessions at once. Outstanding factors depend on
 * the request (its bearer tokens), so other sessions' lists show none, as upstream ("not in a request context").
 */
export async function apiSessionExtras(
  db: Db,
  deps: { apiSessions: ApiSessions },
  sessions: readonly SessionForDetail[],
): Promise<Record<string, unknown>[]> {
  const refFor = await identityRefs(
    db,
    sessions.map((s) => s.identityId),
  );
  return sessions.map((session) => sessionExtras(deps, session, refFor(session.identityId)));
}

function sessionExtras(
  deps: { apiSessions: ApiSessions },
  session: SessionForDetail,
  identity: Record<string, unknown>,
): Record<string, unknown> {
  return {
    authQueries: [],
    cachedLastActivityAt: deps.apiSessions.lastActivity(session.id, session.lastActivityAt),
    identity,
  };
}

/**
 * One session; `authQueries` are the caller's own outstanding factors when the session is the caller's. Upstream
 * links it as an API session wherever it is shown, `current-api-session` included.
 */
export async function apiSessionDetail(
  db: Db,
  deps: { apiSessions: ApiSessions },
  row: ApiSessionRow,
  authQueries: readonly AuthQuery[] = [],
  identity?: { id: string; name: string; authPolicyId: string },
): Promise<Record<string, unknown> & { token: string }> {
  const sessions = deps.apiSessions;
  const links = { self: { href: `./api-sessions/${row.id}` }, sessions: { href: `./api-sessions/${row.id}/sessions` } };
  const session = { id: row.id, identityId: row.identity_id, lastActivityAt: row.last_activity_at };
  // A caller that has just read the identity (a login) passes its reference; otherwise it is read here.
  const [extras] = identity
    ? [sessionExtras(deps, session, identityRef(identity))]
    : await apiSessionExtras(db, deps, [session]);
  return {
    _links: links,
    createdAt: row.created_at,
    id: row.id,
    tags: storedJson(row.tags),
    updatedAt: row.updated_at,
    authenticatorId: row.authenticator_id ?? '',
    configTypes: row.config_types ? storedJson(row.config_types) : [],
    // For a zt-session session upstream reports the full timeout, not the time remaining.
    expirationSeconds: Math.floor(sessions.timeoutMs / 1000),
    expiresAt: sessions.expiresAt(row.id, row.last_activity_at).toISOString(),
    identityId: row.identity_id,
    ipAddress: row.ip_address ?? '',
    isMfaComplete: row.is_mfa_complete === 1,
    isMfaRequired: row.is_mfa_required === 1,
    lastActivityAt: row.last_activity_at,
    token: row.token,
    ...extras,
    authQueries,
  };
}

/** A JSON column as stored (tags, config type ids): rendered as it is, never read here. */
const storedJson = (text: string): unknown => JSON.parse(text);
