// Enrollment records (one-time tokens with their signed JWTs) for identities and routers: written, found by token,
// consumed once, refreshed, and shown on identity and router views.
import type { Selectable } from 'kysely';
import { typed } from '../connection.js';
import type { EnrollmentsTable } from '../schema.js';
import type { Db } from '../store.js';

export interface EnrollmentRecord {
  id: string;
  method: string;
  token: string;
  expiresAt: string;
  identityId: string | null;
  routerId: string | null;
  caId: string | null;
  username: string | null;
  jwt: string;
}

function toRecord(row: Selectable<EnrollmentsTable>): EnrollmentRecord {
  return {
    id: row.id,
    method: row.method,
    token: row.token,
    expiresAt: row.expires_at,
    identityId: row.identity_id,
    routerId: row.router_id,
    caId: row.ca_id,
    username: row.username,
    jwt: row.jwt,
  };
}

export async function insertEnrollment(tx: Db, record: EnrollmentRecord, at: string): Promise<void> {
  await typed(tx)
    .insertInto('enrollments')
    .values({
      id: record.id,
      created_at: at,
      updated_at: at,
      tags: '{}',
      is_system: 0,
      method: record.method,
      token: record.token,
      expires_at: record.expiresAt,
      identity_id: record.identityId,
      router_id: record.routerId,
      ca_id: record.caId,
      username: record.username,
      jwt: record.jwt,
    })
    .execute();
}

export async function enrollmentBy(
  db: Db,
  column: 'id' | 'token',
  value: string,
): Promise<EnrollmentRecord | undefined> {
  const row = await typed(db).selectFrom('enrollments').selectAll().where(column, '=', value).executeTakeFirst();
  return row && toRecord(row);
}

/** Deletes the enrollment; false when it was gone already (a concurrent use consumed it). */
export async function consumeEnrollmentRow(tx: Db, id: string): Promise<boolean> {
  const deleted = await typed(tx).deleteFrom('enrollments').where('id', '=', id).executeTakeFirst();
  return Number(deleted.numDeletedRows) === 1;
}

/** A new expiry and JWT for the same token. */
export async function refreshEnrollmentRow(
  tx: Db,
  id: string,
  expiresAt: string,
  jwt: string,
  at: string,
): Promise<void> {
  await typed(tx)
    .updateTable('enrollments')
    .set({ expires_at: expiresAt, jwt, updated_at: at })
    .where('id', '=', id)
    .execute();
}

/** The identity's enrollments of one method, live or expired. */
export async function enrollmentsOfIdentity(
  db: Db,
  identityId: string,
  method: string,
): Promise<{ id: string; expiresAt: string }[]> {
  return typed(db)
    .selectFrom('enrollments')
    .select(['id', 'expires_at as expiresAt'])
    .where('identity_id', '=', identityId)
    .where('method', '=', method)
    .execute();
}

export async function deleteEnrollments(tx: Db, ids: readonly string[]): Promise<void> {
  if (ids.length > 0) await typed(tx).deleteFrom('enrollments').where('id', 'in', ids).execute();
}

/** Whether a password authenticator, or a updb enrollment live after `now`, holds this username. */
export async function isUsernameTaken(db: Db, username: string, now: string): Promise<boolean> {
  const [authenticator, enrollment] = await Promise.all([
    typed(db).selectFrom('authenticators').select('id').where('username', '=', username).executeTakeFirst(),
    typed(db)
      .selectFrom('enrollments')
      .select('id')
      .where('method', '=', 'updb')
      .where('username', '=', username)
      .where('expires_at', '>', now)
      .executeTakeFirst(),
  ]);
  return authenticator !== undefined || enrollment !== undefined;
}

/** The enrollments of these routers, oldest first, with when each was made. */
export async function enrollmentsOfRouters(
  db: Db,
  routerIds: readonly string[],
): Promise<(EnrollmentRecord & { createdAt: string })[]> {
  if (routerIds.length === 0) return [];
  const rows = await typed(db)
    .selectFrom('enrollments')
    .selectAll()
    .where('router_id', 'in', routerIds)
    .orderBy('created_at')
    .execute();
  return rows.map((row) => ({ ...toRecord(row), createdAt: row.created_at }));
}

export async function deleteRouterEnrollments(tx: Db, routerId: string): Promise<void> {
  await typed(tx).deleteFrom('enrollments').where('router_id', '=', routerId).execute();
}
