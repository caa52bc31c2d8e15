// Identities beyond the entity kit: lookups by external id, the client info logins record, disabling, the
// default admin, the identity a tunneler-enabled router brings, traces, and the extras identity views show.
import { typed } from '../connection.js';
import { inTextList, preparedQuery } from '../prepared.js';
import type { Db } from '../store.js';

export async function identityExists(db: Db, id: string): Promise<boolean> {
  return (await typed(db).selectFrom('identities').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}

/** The identity whose `column` (its id, or its external id) holds `value`. */
export async function identityIdBy(db: Db, column: 'id' | 'external_id', value: string): Promise<string | undefined> {
  return (await typed(db).selectFrom('identities').select('id').where(column, '=', value).executeTakeFirst())?.id;
}

/** id, name and auth policy of these identities, for references. */
export async function identityNames(db: Db, ids: readonly string[]): Promise<{ id: string; name: string; authPolicyId: string }[]> {
  if (ids.length === 0) return [];
  return typed(db).selectFrom('identities').select(['id', 'name', 'auth_policy_id as authPolicyId']).where('id', 'in', ids).execute();
}

/** An identity other than `exceptId` with this name, if any. */
export async function identityNamed(db: Db, name: string, exceptId: string): Promise<string | undefined> {
  return (await typed(db).selectFrom('identities').select('id').where('name', '=', name).where('id', '!=', exceptId).executeTakeFirst())?.id;
}

/** The `sdkInfo` a client sent at login (JSON text), if any. */
export async function identitySdkInfo(db: Db, id: string): Promise<string | null | undefined> {
  return (await typed(db).selectFrom('identities').select('sdk_info').where('id', '=', id).executeTakeFirst())?.sdk_info;
}

/** What a client says about itself at login (JSON text each; absent ones stay as they were). */
export async function recordClientInfo(tx: Db, id: string, info: { envInfo?: string; sdkInfo?: string }, at: string): Promise<void> {
  const changes = { ...(info.envInfo ? { env_info: info.envInfo } : {}), ...(info.sdkInfo ? { sdk_info: info.sdkInfo } : {}) };
  if (Object.keys(changes).length === 0) return;
  await typed(tx).updateTable('identities').set({ ...changes, updated_at: at }).where('id', '=', id).execute();
}

/** Disables the identity from `at` until `until` (null: until enabled) and ends its API sessions; returns their ids. */
export async function disableIdentity(tx: Db, id: string, at: string, until: string | null): Promise<string[]> {
  await typed(tx).updateTable('identities').set({ disabled_at: at, disabled_until: until, updated_at: at }).where('id', '=', id).execute();
  const sessions = await typed(tx).deleteFrom('api_sessions').where('identity_id', '=', id).returning('id').execute();
  return sessions.map((session) => session.id);
}

export async function enableIdentity(tx: Db, id: string, at: string): Promise<void> {
  await typed(tx).updateTable('identities').set({ disabled_at: null, disabled_until: null, updated_at: at }).where('id', '=', id).execute();
}

export async function hasDefaultAdmin(db: Db): Promise<boolean> {
  return (await typed(db).selectFrom('identities').select('id').where('is_default_admin', '=', 1).executeTakeFirst()) !== undefined;
}

/** The default admin and its password authenticator. */
export async function insertDefaultAdmin(
  tx: Db,
  admin: { identityId: string; authenticatorId: string; username: string; passwordHash: string; passwordSalt: string },
  at: string,
): Promise<void> {
  await typed(tx)
    .insertInto('identities')
    .values({ id: admin.identityId, created_at: at, updated_at: at, name: 'Default Admin', type_id: 'Default', is_admin: 1, is_default_admin: 1 })
    .execute();
  await typed(tx)
    .insertInto('authenticators')
    .values({
      id: admin.authenticatorId,
      created_at: at,
      updated_at: at,
      identity_id: admin.identityId,
      method: 'updb',
      username: admin.username,
      password_hash: admin.passwordHash,
      password_salt: admin.passwordSalt,
    })
    .execute();
}

/** What identity views show beside the row: authenticators, a live API session, the auth policy's name, verified MFA. */
export interface IdentityExtras {
  authenticators: { id: string; identityId: string; method: string; username: string | null; certFingerprint: string | null }[];
  /** Identities with at least one API session. */
  withApiSession: Set<string>;
  authPolicyNames: Map<string, string>;
  /** Identities with verified MFA. */
  withMfa: Set<string>;
}

export async function identityExtras(db: Db, ids: readonly string[], authPolicyIds: readonly string[]): Promise<IdentityExtras> {
  const [authenticators, sessions, policies, verifiedMfa] = await Promise.all([
    selectAuthenticatorsOf(db, ids),
    selectIdentitiesWithApiSession(db, ids),
    selectAuthPolicyNames(db, authPolicyIds),
    selectVerifiedMfaOf(db, ids),
  ]);
  return {
    authenticators,
    withApiSession: new Set(sessions.map((row) => row.id)),
    authPolicyNames: new Map(policies.map((row) => [row.id, row.name])),
    withMfa: new Set(verifiedMfa.map((row) => row.identity_id)),
  };
}

const selectAuthenticatorsOf = preparedQuery((q, ids: readonly string[]) =>
  q
    .selectFrom('authenticators')
    .select(['id', 'identity_id as identityId', 'method', 'username', 'cert_fingerprint as certFingerprint'])
    .where('identity_id', 'in', inTextList(q, ids)),
);

// One index probe per identity, however many sessions it has.
const selectIdentitiesWithApiSession = preparedQuery((q, ids: readonly string[]) =>
  q
    .selectFrom('identities as i')
    .select('i.id')
    .where('i.id', 'in', inTextList(q, ids))
    .where((eb) => eb.exists(eb.selectFrom('api_sessions as s').select('s.id').whereRef('s.identity_id', '=', 'i.id'))),
);

const selectAuthPolicyNames = preparedQuery((q, ids: readonly string[]) =>
  q.selectFrom('auth_policies').select(['id', 'name']).where('id', 'in', inTextList(q, ids)),
);

const selectVerifiedMfaOf = preparedQuery((q, ids: readonly string[]) =>
  q.selectFrom('mfas').select('identity_id').where('identity_id', 'in', inTextList(q, ids)).where('is_verified', '=', 1),
);

/** A tunneler-enabled router's identity (id = router id, type Router, system) and its system edge router policy. */
export async function insertRouterIdentity(tx: Db, routerId: string, name: string, policyName: string, roles: readonly string[], at: string): Promise<void> {
  const common = { id: routerId, created_at: at, updated_at: at, tags: '{}', is_system: 1 };
  await typed(tx).insertInto('identities').values({ ...common, name, type_id: 'Router' }).execute();
  const roleList = JSON.stringify(roles);
  await typed(tx)
    .insertInto('edge_router_policies')
    .values({ ...common, name: policyName, semantic: 'AnyOf', identity_roles: roleList, edge_router_roles: roleList })
    .execute();
  const rows = roles.map((value) => ({ entity_id: routerId, value }));
  await typed(tx).insertInto('edge_router_policy_identity_roles').values(rows).execute();
  await typed(tx).insertInto('edge_router_policy_edge_router_roles').values(rows).execute();
}

export async function renameRouterIdentity(tx: Db, routerId: string, name: string, at: string): Promise<void> {
  await typed(tx).updateTable('identities').set({ name, updated_at: at }).where('id', '=', routerId).where('type_id', '=', 'Router').execute();
}

/** Removes both; harmless when the router never had them. */
export async function deleteRouterIdentity(tx: Db, routerId: string): Promise<void> {
  await typed(tx).deleteFrom('edge_router_policies').where('id', '=', routerId).where('is_system', '=', 1).execute();
  await typed(tx).deleteFrom('identities').where('id', '=', routerId).where('type_id', '=', 'Router').execute();
}

export interface IdentityTrace {
  identityId: string;
  traceId: string;
  /** JSON text of the channel names. */
  channels: string;
  createdAt: string;
  until: string;
}

export async function deleteIdentityTrace(tx: Db, identityId: string): Promise<void> {
  await typed(tx).deleteFrom('identity_traces').where('identity_id', '=', identityId).execute();
}

/** Sets the identity's trace; traces that ended by `at` go. */
export async function saveIdentityTrace(tx: Db, trace: IdentityTrace, at: string): Promise<void> {
  const row = { identity_id: trace.identityId, trace_id: trace.traceId, channels: trace.channels, created_at: trace.createdAt, until: trace.until };
  await typed(tx).deleteFrom('identity_traces').where('until', '<=', at).execute();
  await typed(tx).insertInto('identity_traces').values(row).onConflict((c) => c.column('identity_id').doUpdateSet(row)).execute();
}

/** Whether an identity has this name. */
export async function isIdentityNameTaken(db: Db, name: string): Promise<boolean> {
  return (await typed(db).selectFrom('identities').select('id').where('name', '=', name).executeTakeFirst()) !== undefined;
}
