// Reading, checking and consuming enrollment records (one-time tokens).
import { ApiError } from '../errors/api-error.js';
import { consumeEnrollmentRow, enrollmentBy, type EnrollmentRecord } from '../store/queries/enrollments.js';
import type { Db } from '../store/store.js';
import { recordedWrite } from '../crud/recorded-write.js';
import { enrollment as enrollmentEntity } from '../entities/enrollment/enrollment.definition.js';

/**
 * The live enrollment behind a token: unknown or used → INVALID_ENROLLMENT_TOKEN; past `expiresAt` →
 * ENROLLMENT_EXPIRED for every method (upstream v1.1.8 checks expiry only for routers; we check it always).
 */
export async function requireEnrollment(db: Db, token: unknown, now: Date): Promise<EnrollmentRecord> {
  const enrollment = typeof token === 'string' && token !== '' ? await enrollmentBy(db, 'token', token) : undefined;
  if (!enrollment) throw new ApiError('INVALID_ENROLLMENT_TOKEN');
  if (Date.parse(enrollment.expiresAt) <= now.getTime()) throw new ApiError('ENROLLMENT_EXPIRED');
  return enrollment;
}

/** Single use: consumed in the same transaction that creates what it granted. */
export async function consumeEnrollment(tx: Db, enrollment: EnrollmentRecord): Promise<void> {
  // Its deletion is recorded with the enrolling identity or router as author (enroll.operations.ts sets it).
  const consumed = await recordedWrite(tx, enrollmentEntity, enrollment.id, () =>
    consumeEnrollmentRow(tx, enrollment.id),
  );
  if (!consumed) throw new ApiError('INVALID_ENROLLMENT_TOKEN');
}
