// Renders an API session as `currentApiSessionDetail`, the shape authenticate and current-api-session return.
import type { AppDeps } from '../app-deps.js';
import type { Db } from '../store/store.js';
import type { ApiSessionRow } from './api-sessions.js';
import { identityRef } from './identity-links.js';

export type SessionLinks = 'api-session' | 'current-api-session';

export async function apiSessionDetail(db: Db, deps: AppDeps, row: ApiSessionRow, linkStyle: SessionLinks): Promise<Record<string, unknown>> {
  const identity = await db
    .selectFrom('identities')
    .select(['id', 'name', 'auth_policy_id'])
    .where('id', '=', row.identity_id)
    .executeTakeFirstOrThrow();
  const sessions = deps.apiSessions;
  const links =
    linkStyle === 'api-session'
      ? { self: { href: `./api-sessions/${row.id}` }, sessions: { href: `./api-sessions/${row.id}/sessions` } }
      : { self: { href: './current-api-session' }, 'current-identity': { href: './current-identity' } };
  return {
    _links: links,
    createdAt: row.created_at,
    id: row.id,
    tags: JSON.parse(row.tags) as unknown,
    updatedAt: row.updated_at,
    authQueries: [],
    authenticatorId: row.authenticator_id ?? '',
    cachedLastActivityAt: sessions.lastActivity(row.id, row.last_activity_at),
    configTypes: row.config_types ? (JSON.parse(row.config_types) as string[]) : [],
    // For a zt-session session upstream reports the full timeout, not the time remaining.
    expirationSeconds: Math.floor(sessions.timeoutMs / 1000),
    expiresAt: sessions.expiresAt(row.id, row.last_activity_at).toISOString(),
    identity: identityRef({ id: identity.id as string, name: identity.name as string, authPolicyId: identity.auth_policy_id as string }),
    identityId: row.identity_id,
    ipAddress: row.ip_address ?? '',
    isMfaComplete: row.is_mfa_complete === 1,
    isMfaRequired: row.is_mfa_required === 1,
    lastActivityAt: row.last_activity_at,
    token: row.token,
  };
}
