// API sessions: created at login, found by token on every request (with what the caller's identity and auth
// policy say), their activity recorded in batches, ended by logout, expiry, disabling or an admin.
import type { Selectable } from 'kysely';
import { sql } from 'kysely';
import { typed } from '../connection.js';
import { preparedQuery } from '../prepared.js';
import { insertRow, type Row } from './entities.js';
import type { ApiSessionsTable } from '../schema.js';
import type { Db } from '../store.js';

export type ApiSessionRow = Selectable<ApiSessionsTable>;

export async function insertApiSession(tx: Db, row: ApiSessionRow): Promise<void> {
  await insertRow(tx, 'api_sessions', row);
}

export async function apiSessionById(db: Db, id: string): Promise<ApiSessionRow | undefined> {
  return typed(db).selectFrom('api_sessions').selectAll().where('id', '=', id).executeTakeFirst();
}

const selectApiSessionByToken = preparedQuery((q, token: string) =>
  q
    .selectFrom('api_sessions as s')
    .innerJoin('identities as i', 'i.id', 's.identity_id')
    .innerJoin('auth_policies as p', 'p.id', 'i.auth_policy_id')
    .select([
      's.id',
      's.token',
      's.identity_id',
      's.last_activity_at',
      's.is_mfa_required',
      's.is_mfa_complete',
      's.config_types',
    ])
    .select([
      'i.is_admin',
      'i.is_default_admin',
      'i.disabled_at',
      'i.disabled_until',
      'p.secondary_require_totp',
      'p.secondary_require_ext_jwt_signer',
    ])
    .where('s.token', '=', token),
);

/** The session behind a token, with the identity's admin and disabled state and its auth policy's secondary factors. */
export async function apiSessionByToken(db: Db, token: string) {
  return (await selectApiSessionByToken(db, token))[0];
}

const updateApiSessionActivity = preparedQuery((q, id: string, at: string) =>
  q
    .updateTable('api_sessions')
    .set({ last_activity_at: at, updated_at: at })
    .where('id', '=', id)
    .where('last_activity_at', '<', at),
);

/** Moves the session's last activity to `at`, unless something later is stored already. */
export async function recordApiSessionActivity(tx: Db, id: string, at: string): Promise<void> {
  await updateApiSessionActivity(tx, id, at);
}

/** Whether any session has been idle since before `cutoff` (an index lookup). */
export async function hasIdleApiSessions(db: Db, cutoff: string): Promise<boolean> {
  return (
    (await typed(db)
      .selectFrom('api_sessions')
      .select('id')
      .where('last_activity_at', '<', cutoff)
      .limit(1)
      .executeTakeFirst()) !== undefined
  );
}

/** Ends every session idle since before `cutoff`; answers the ended ones. */
export async function deleteIdleApiSessions(tx: Db, cutoff: string): Promise<ApiSessionRow[]> {
  return typed(tx).deleteFrom('api_sessions').where('last_activity_at', '<', cutoff).returningAll().execute();
}

/** Ends one session; answers it, if it was there. */
export async function deleteApiSession(tx: Db, id: string): Promise<ApiSessionRow | undefined> {
  return typed(tx).deleteFrom('api_sessions').where('id', '=', id).returningAll().executeTakeFirst();
}

/**
 * Ends the sessions an authenticator opened, when it goes (deleted or re-enrolled), as upstream's authenticator
 * store DeleteById does (`DeleteWhere authenticator="<id>"`). Its sessions are its identity's, which the index finds.
 */
export async function deleteApiSessionsOfAuthenticator(
  tx: Db,
  identityId: string,
  authenticatorId: string,
): Promise<void> {
  await typed(tx)
    .deleteFrom('api_sessions')
    .where('identity_id', '=', identityId)
    .where('authenticator_id', '=', authenticatorId)
    .execute();
}

/** The API sessions of one identity (what disabling it ends). */
export async function apiSessionsOfIdentity(db: Db, identityId: string): Promise<ApiSessionRow[]> {
  return typed(db).selectFrom('api_sessions').selectAll().where('identity_id', '=', identityId).execute();
}

/** The API sessions of these identities, by id. */
export async function apiSessionIdsOf(db: Db, identityIds: readonly string[]): Promise<string[]> {
  if (identityIds.length === 0) return [];
  const rows = await typed(db)
    .selectFrom('api_sessions')
    .select('id')
    .where('identity_id', 'in', identityIds)
    .orderBy('id')
    .execute();
  return rows.map((row) => row.id);
}

/** How many API sessions exist (a metrics gauge). */
export async function countApiSessions(db: Db): Promise<number> {
  const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM api_sessions`.execute(db);
  return Number(rows[0]?.n ?? 0);
}

/** The session passed its TOTP factor at `at` (both flags, as upstream's SetMfaPassed / MfaCompleted). */
export async function completeApiSessionMfa(tx: Db, id: string, at: string): Promise<void> {
  await typed(tx)
    .updateTable('api_sessions')
    .set({ is_mfa_required: 1, is_mfa_complete: 1, mfa_completed_at: at })
    .where('id', '=', id)
    .execute();
}

/** When this session of this identity last passed MFA: null if never, undefined if it is not the identity's. */
export async function apiSessionMfaCompletedAt(
  db: Db,
  id: string,
  identityId: string,
): Promise<string | null | undefined> {
  return (
    await typed(db)
      .selectFrom('api_sessions')
      .select('mfa_completed_at')
      .where('id', '=', id)
      .where('identity_id', '=', identityId)
      .executeTakeFirst()
  )?.mfa_completed_at;
}

export interface ApiSessionCertificate {
  id: string;
  apiSessionId: string;
  subject: string;
  fingerprint: string;
  validFrom: string;
  validTo: string;
  certPem: string;
}

export async function insertApiSessionCertificate(
  tx: Db,
  certificate: ApiSessionCertificate,
  at: string,
): Promise<Row> {
  const stored = await insertRow(
    tx,
    'api_session_certificates',
    {
      id: certificate.id,
      created_at: at,
      updated_at: at,
      tags: '{}',
      is_system: 0,
      api_session_id: certificate.apiSessionId,
      subject: certificate.subject,
      fingerprint: certificate.fingerprint,
      valid_from: certificate.validFrom,
      valid_to: certificate.validTo,
      cert_pem: certificate.certPem,
    },
    [],
    true,
  );
  if (!stored) throw new Error('the inserted API session certificate was not returned');
  return stored;
}

/** Every session's record of a certificate goes (it was replaced). */
export async function deleteApiSessionCertificates(tx: Db, fingerprint: string): Promise<void> {
  await typed(tx).deleteFrom('api_session_certificates').where('fingerprint', '=', fingerprint).execute();
}
