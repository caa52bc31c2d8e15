// Reading, checking and consuming enrollment records (one-time tokens).
import { ApiError } from '../errors/api-error.js';
import type { Db } from '../store/store.js';

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

type Row = Record<string, unknown>;

export function toEnrollmentRecord(row: Row): EnrollmentRecord {
  return {
    id: row.id as string,
    method: row.method as string,
    token: row.token as string,
    expiresAt: row.expires_at as string,
    identityId: (row.identity_id as string | null) ?? null,
    routerId: (row.router_id as string | null) ?? null,
    caId: (row.ca_id as string | null) ?? null,
    username: (row.username as string | null) ?? null,
    jwt: row.jwt as string,
  };
}

/**
 * The live enrollment behind a token: unknown or used → INVALID_ENROLLMENT_TOKEN; past `expiresAt` →
 * ENROLLMENT_EXPIRED for every method (upstream v1.1.8 checks expiry only for routers; we check it always).
 */
export async function requireEnrollment(db: Db, token: unknown, now: Date): Promise<EnrollmentRecord> {
  const row = typeof token === 'string' && token !== '' ? await db.selectFrom('enrollments').selectAll().where('token', '=', token).executeTakeFirst() : undefined;
  if (!row) throw new ApiError('INVALID_ENROLLMENT_TOKEN');
  const enrollment = toEnrollmentRecord(row);
  if (Date.parse(enrollment.expiresAt) <= now.getTime()) throw new ApiError('ENROLLMENT_EXPIRED');
  return enrollment;
}

/** Single use: consumed in the same transaction that creates what it granted. */
export async function consumeEnrollment(tx: Db, enrollment: EnrollmentRecord): Promise<void> {
  const deleted = await tx.deleteFrom('enrollments').where('id', '=', enrollment.id).executeTakeFirst();
  if (Number(deleted.numDeletedRows) !== 1) throw new ApiError('INVALID_ENROLLMENT_TOKEN');
}
