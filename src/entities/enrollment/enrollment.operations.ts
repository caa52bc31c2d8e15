// Enrollment operations (management, admin): list, detail, create for an identity, delete, refresh
// (docs/reference/pki-enrollment-auth.md §3.9).
import { recordedWrite } from '../../crud/recorded-write.js';
import { ApiError } from '../../errors/api-error.js';
import { formatTimestamp } from '../../lib/clock.js';
import { createdEnvelope } from '../../http/envelope.js';
import type { OperationHandler, OperationTable } from '../../http/operation.js';
import { detail, list, remove } from '../../crud/crud-handlers.js';
import {
  createEnrollment,
  futureInstant,
  makeRoomForEnrollment,
  requireUnusedUsername,
} from '../../enrollment/create-enrollment.js';
import { signEnrollmentJwt, type EnrollmentMethod } from '../../enrollment/enrollment-jwt.js';
import { enrollmentBy, refreshEnrollmentRow } from '../../store/queries/enrollments.js';
import { caExists } from '../../store/queries/cas.js';
import { identityExists } from '../../store/queries/identities.js';
import type { Db } from '../../store/store.js';
import { enrollment } from './enrollment.definition.js';

type Exists = (db: Db, id: string) => Promise<boolean>;

async function requireRow(
  db: Db,
  exists: Exists,
  id: string | null | undefined,
  field: string,
  reason: string,
): Promise<string> {
  if (!id || !(await exists(db, id))) throw ApiError.invalidField(field, reason, id);
  return id;
}

/**
 * Upstream's checks in its order (`model/enrollment_manager.go` ApplyCreate): identity, expiry, the method's own
 * field, then one enrollment per method per identity. Its field errors are 400s (rendered COULD_NOT_VALIDATE with
 * the field cause here; quirk Q9 leaves the code open).
 */
const createEnrollmentOperation: OperationHandler<'createEnrollment'> = {
  access: 'admin',
  async handle({ deps, body: input }) {
    const now = deps.clock();
    const id = deps.ids.base62();
    await deps.store.transaction(async (tx) => {
      const identityId = await requireRow(tx, identityExists, input.identityId, 'identityId', 'identity not found');
      const expiresAt = futureInstant(input.expiresAt, now, 'expiresAt must be in the future');
      let caId: string | undefined;
      let username: string | undefined;
      if (input.method === 'ottca') caId = await requireRow(tx, caExists, input.caId, 'caId', 'ca not found');
      if (input.method === 'updb') {
        if (!input.username) throw ApiError.invalidField('username', 'username not provided', input.username);
        username = input.username;
        await requireUnusedUsername(tx, username, 'username', now);
      }
      await makeRoomForEnrollment(tx, identityId, input.method, now);
      await createEnrollment(tx, deps, {
        id,
        method: input.method,
        identityId,
        expiresAt,
        caId,
        username,
      });
    });
    return { status: 201, json: createdEnvelope(enrollment.path, id) };
  },
};

/**
 * A new `exp` and JWT for the same token, so a link already handed out keeps its token
 * (docs/reference/pki-enrollment-auth.md §2.2).
 */
const refreshEnrollment: OperationHandler<'refreshEnrollment'> = {
  access: 'admin',
  async handle({ deps, params: { id }, body: { expiresAt: requested } }) {
    await deps.store.transaction(async (tx) => {
      const record = await enrollmentBy(tx, 'id', id);
      // Upstream's refresh answers an unknown id without a cause.
      if (!record) throw new ApiError('NOT_FOUND');
      const subject = record.identityId ?? record.routerId;
      if (!subject || !record.jwt) throw new ApiError('INVALID_ENROLL_METHOD');
      const now = deps.clock();
      const expiresAt = futureInstant(requested, now, 'must be after the current date and time');
      // The store holds only the methods enrollments are created with; its row types the column as text.
      const jwt = await signEnrollmentJwt(deps.pki, deps.settings, {
        subject,
        token: record.token,
        method: record.method as EnrollmentMethod,
        expiresAt,
      });
      await recordedWrite(tx, enrollment, id, () =>
        refreshEnrollmentRow(tx, id, formatTimestamp(expiresAt), jwt, formatTimestamp(now)),
      );
    });
    return { status: 200, json: createdEnvelope(enrollment.path, id) };
  },
};

export const enrollmentOperations: OperationTable<'management'> = {
  listEnrollments: list(enrollment, 'admin'),
  detailEnrollment: detail(enrollment, 'admin'),
  createEnrollment: createEnrollmentOperation,
  deleteEnrollment: remove(enrollment, 'admin'),
  refreshEnrollment,
};
