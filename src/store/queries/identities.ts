// Identities beyond the entity kit: lookups by external id, the client info logins record, disabling, the
// default admin, the identity a tunneler-enabled router brings, traces, and the extras identity views show.
import { sql } from 'kysely';
import { typed } from '../connection.js';
import { inTextList, preparedQuery } from '../prepared.js';
import type { Db } from '../store.js';

export async function identityExists(db: Db, id: string): Promise<boolean> {
  return (await typed(db).selectFrom('identities').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}

/** The identity whose `field` (its id, or its external id) holds `value`. */
export async function identityIdBy(db: Db, field: 'id' | 'externalId', value: string): Promise<string | undefined> {
  const column = field === 'externalId' ? 'external_id' : 'id';
  return (await typed(db).selectFrom('identities').select('id').where(column, '=', value).executeTakeFirst())?.id;
}

/** id, name and auth policy of these identities, for references. */
const selectIdentityNames = preparedQuery((q, ids: readonly string[]) =>
  q
    .selectFrom('identities')
    .select(['id', 'name', 'auth_policy_id as authPolicyId'])
    .where('id', 'in', inTextList(q, ids)),
);

export async function identityNames(
  db: Db,
  ids: readonly string[],
): Promise<{ id: string; name: string; authPolicyId: string }[]> {
  if (ids.length === 0) return [];
  return selectIdentityNames(db, ids);
}

/** An identity other than `exceptId` with this name, if any. */
export async function identityNamed(db: Db, name: string, exceptId: string): Promise<string | undefined> {
  return (
    await typed(db)
      .selectFrom('identities')
      .select('id')
      .where('name', '=', name)
      .where('id', '!=', exceptId)
      .executeTakeFirst()
  )?.id;
}

/** The `sdkInfo` a client sent at login (JSON text), if any. */
export async function identitySdkInfo(db: Db, id: string): Promise<string | null | undefined> {
  return (await typed(db).selectFrom('identities').select('sdk_info').where('id', '=', id).executeTakeFirst())
    ?.sdk_info;
}

const selectClientInfo = preparedQuery((q, id: string) =>
  q.selectFrom('identities').select(['env_info', 'sdk_info']).where('id', '=', id),
);

/** The client info an identity's last login stored (JSON text each, null when none was sent). */
export async function identityClientInfo(
  db: Db,
  id: string,
): Promise<{ envInfo: string | null; sdkInfo: string | null } | undefined> {
  const [row] = await selectClientInfo(db, id);
  return row && { envInfo: row.env_info, sdkInfo: row.sdk_info };
}

/** What a client says about itself at login (JSON text each; absent ones stay as they were). */
export async function recordClientInfo(
  tx: Db,
  id: string,
  info: { envInfo?: string; sdkInfo?: string },
  at: string,
): Promise<void> {
  const changes = {
    ...(info.envInfo ? { env_info: info.envInfo } : {}),
    ...(info.sdkInfo ? { sdk_info: info.sdkInfo } : {}),
  };
  if (Object.keys(changes).length === 0) return;
  await typed(tx)
    .updateTable('identities')
    .set({ ...changes, updated_at: at })
    .where('id', '=', id)
    .execute();
}

/** Disables the identity from `at` until `until` (null: until enabled) and ends its API sessions; returns their ids. */
export async function disableIdentity(tx: Db, id: string, at: string, until: string | null): Promise<string[]> {
  await typed(tx)
    .updateTable('identities')
    .set({ disabled_at: at, disabled_until: until, updated_at: at })
    .where('id', '=', id)
    .execute();
  const sessions = await typed(tx).deleteFrom('api_sessions').where('identity_id', '=', id).returning('id').execute();
  return sessions.map((session) => session.id);
}

export async function enableIdentity(tx: Db, id: string, at: string): Promise<void> {
  await typed(tx)
    .updateTable('identities')
    .set({ disabled_at: null, disabled_until: null, updated_at: at })
    .where('id', '=', id)
    .execute();
}

export async function hasDefaultAdmin(db: Db): Promise<boolean> {
  return (
    (await typed(db).selectFrom('identities').select('id').where('is_default_admin', '=', 1).executeTakeFirst()) !==
    undefined
  );
}

/** The default admin and its password authenticator. */
export async function insertDefaultAdmin(
  tx: Db,
  admin: { identityId: string; authenticatorId: string; username: string; passwordHash: string; passwordSalt: string },
  at: string,
): Promise<void> {
  await typed(tx)
    .insertInto('identities')
    .values({
      id: admin.identityId,
      created_at: at,
      updated_at: at,
      name: 'Default Admin',
      type_id: 'Default',
      is_admin: 1,
      is_default_admin: 1,
    })
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

/** An outstanding enrollment of an identity, with its CA for ottca (identity views show them). */
export interface IdentityEnrollmentRow {
  identityId: string;
  id: string;
  method: string;
  token: string;
  jwt: string;
  expiresAt: string;
  ca: { id: string; name: string; isVerified: boolean; isAutoCaEnrollmentEnabled: boolean } | undefined;
}

/** What identity views show beside the row: authenticators, a live API session, the auth policy's name, verified MFA, enrollments. */
export interface IdentityExtras {
  authenticators: {
    id: string;
    identityId: string;
    method: string;
    username: string | null;
    certFingerprint: string | null;
  }[];
  /** Identities with at least one API session. */
  withApiSession: Set<string>;
  authPolicyNames: Map<string, string>;
  /** Identities with verified MFA. */
  withMfa: Set<string>;
  /** Oldest first. */
  enrollments: IdentityEnrollmentRow[];
}

/** One row of the extras statement: `kind` says which of its parts it belongs to and what the other columns hold. */
interface ExtraRow {
  kind: 'authenticator' | 'enrollment' | 'mfa' | 'policy' | 'session';
  /** The identity's id (the auth policy's for `policy`). */
  owner: string;
  id: string | null;
  method: string | null;
  /** username (authenticator), token (enrollment), name (policy). */
  text1: string | null;
  /** cert fingerprint (authenticator), jwt (enrollment). */
  text2: string | null;
  expires_at: string | null;
  ca_id: string | null;
  ca_name: string | null;
  ca_is_verified: number | null;
  ca_is_auto: number | null;
  at: string | null;
}

/** The page's extras in one statement (a page used to take six, each a round trip through the driver). */
export async function identityExtras(
  db: Db,
  ids: readonly string[],
  authPolicyIds: readonly string[],
): Promise<IdentityExtras> {
  const extras: IdentityExtras = {
    authenticators: [],
    withApiSession: new Set(),
    authPolicyNames: new Map(),
    withMfa: new Set(),
    enrollments: [],
  };
  if (ids.length === 0) return extras;
  for (const row of await selectIdentityExtras(db, ids, authPolicyIds)) {
    switch (row.kind) {
      case 'authenticator':
        extras.authenticators.push({
          id: row.id!,
          identityId: row.owner,
          method: row.method!,
          username: row.text1,
          certFingerprint: row.text2,
        });
        break;
      case 'session':
        extras.withApiSession.add(row.owner);
        break;
      case 'policy':
        extras.authPolicyNames.set(row.owner, row.text1!);
        break;
      case 'mfa':
        extras.withMfa.add(row.owner);
        break;
      case 'enrollment': {
        const ca =
          row.ca_id === null || row.ca_name === null
            ? undefined
            : {
                id: row.ca_id,
                name: row.ca_name,
                isVerified: Number(row.ca_is_verified) === 1,
                isAutoCaEnrollmentEnabled: Number(row.ca_is_auto) === 1,
              };
        extras.enrollments.push({
          identityId: row.owner,
          id: row.id!,
          method: row.method!,
          token: row.text1!,
          jwt: row.text2!,
          expiresAt: row.expires_at!,
          ca,
        });
        break;
      }
    }
  }
  return extras;
}

// Every part has the same columns, typed alike (PostgreSQL resolves a UNION's column types pair by pair, so a
// bare NULL would not do); the API session part is one index probe per identity, however many sessions it has.
const selectIdentityExtras = preparedQuery((q, ids: readonly string[], authPolicyIds: readonly string[]) => {
  const page = inTextList(q, ids);
  const noText = sql`CAST(NULL AS TEXT)`;
  const noInt = sql`CAST(NULL AS INTEGER)`;
  const none = sql`${noText}, ${noText}, ${noText}, ${noText}, ${noText}, ${noText}, ${noText}, ${noInt}, ${noInt}, ${noText}`;
  return sql<ExtraRow>`
    SELECT 'authenticator' AS kind, identity_id AS owner, id, method, username AS text1, cert_fingerprint AS text2,
      ${noText} AS expires_at, ${noText} AS ca_id, ${noText} AS ca_name, ${noInt} AS ca_is_verified, ${noInt} AS ca_is_auto, ${noText} AS at
    FROM authenticators WHERE identity_id IN ${page}
    UNION ALL
    SELECT 'enrollment', e.identity_id, e.id, e.method, e.token, e.jwt, e.expires_at, c.id, c.name, c.is_verified, c.is_auto_ca_enrollment_enabled, e.created_at
    FROM enrollments e LEFT JOIN cas c ON c.id = e.ca_id WHERE e.identity_id IN ${page}
    UNION ALL
    SELECT 'mfa', identity_id, ${none} FROM mfas WHERE identity_id IN ${page} AND is_verified = 1
    UNION ALL
    SELECT 'policy', id, ${noText}, ${noText}, name, ${noText}, ${noText}, ${noText}, ${noText}, ${noInt}, ${noInt}, ${noText}
    FROM auth_policies WHERE id IN ${inTextList(q, authPolicyIds)}
    UNION ALL
    SELECT 'session', i.id, ${none} FROM identities i
    WHERE i.id IN ${page} AND EXISTS (SELECT 1 FROM api_sessions s WHERE s.identity_id = i.id)
    ORDER BY kind, at`;
});

/** A tunneler-enabled router's identity (id = router id, type Router, system) and its system edge router policy. */
export async function insertRouterIdentity(
  tx: Db,
  routerId: string,
  name: string,
  policyName: string,
  roles: readonly string[],
  at: string,
): Promise<void> {
  const common = { id: routerId, created_at: at, updated_at: at, tags: '{}', is_system: 1 };
  await typed(tx)
    .insertInto('identities')
    .values({ ...common, name, type_id: 'Router' })
    .execute();
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
  await typed(tx)
    .updateTable('identities')
    .set({ name, updated_at: at })
    .where('id', '=', routerId)
    .where('type_id', '=', 'Router')
    .execute();
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
  const row = {
    identity_id: trace.identityId,
    trace_id: trace.traceId,
    channels: trace.channels,
    created_at: trace.createdAt,
    until: trace.until,
  };
  await typed(tx).deleteFrom('identity_traces').where('until', '<=', at).execute();
  await typed(tx)
    .insertInto('identity_traces')
    .values(row)
    .onConflict((c) => c.column('identity_id').doUpdateSet(row))
    .execute();
}

/** Whether an identity has this name. */
export async function isIdentityNameTaken(db: Db, name: string): Promise<boolean> {
  return (
    (await typed(db).selectFrom('identities').select('id').where('name', '=', name).executeTakeFirst()) !== undefined
  );
}
