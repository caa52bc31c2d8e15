// `updb`: a one-time token and a chosen password become a `updb` authenticator with the enrollment's username.
import { ApiError } from '../../errors/api-error.js';
import { formatTimestamp } from '../../lib/clock.js';
import { emptyEnvelope } from '../../http/envelope.js';
import { insertEntity } from '../../crud/entity-store.js';
import { hashPassword } from '../../auth/password.js';
import { authenticator } from '../../entities/authenticator/authenticator.definition.js';
import type { EnrollMethod } from '../enroll.operations.js';
import { consumeEnrollment } from '../enrollment-record.js';
import { requireUnusedUsername } from '../create-enrollment.js';

/**
 * The contract's password rule (5–100 characters). `/enroll/updb` has it checked by the request validator already;
 * `/enroll?method=updb` declares no body, where upstream answers a missing password with a 500 (quirk Q7).
 */
function passwordFrom(body: unknown): string {
  const password = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).password : undefined;
  if (typeof password !== 'string' || password.length < 5 || password.length > 100) {
    throw ApiError.invalidField('password', 'password must be 5 to 100 characters', password === undefined ? undefined : '******');
  }
  return password;
}

export const enrollWithUpdb: EnrollMethod = async (context, enrollment) => {
  const { deps } = context;
  const { identityId, username } = enrollment;
  if (identityId === null || !username) throw new ApiError('INVALID_ENROLLMENT_TOKEN');
  // A `username` in the body is ignored, as upstream: the admin chose it when creating the enrollment.
  const { hash, salt } = await hashPassword(passwordFrom(context.body));
  await deps.store.transaction(async (tx) => {
    await consumeEnrollment(tx, enrollment);
    // Usernames are checked when the enrollment is made, but an admin may have taken it for another identity since.
    await requireUnusedUsername(tx, username, 'username', deps.clock());
    const now = formatTimestamp(deps.clock());
    await insertEntity(tx, authenticator, {
      id: deps.ids.shortId(),
      createdAt: now,
      updatedAt: now,
      method: 'updb',
      identityId,
      username,
      passwordHash: hash,
      passwordSalt: salt,
    });
  });
  return { status: 200, json: emptyEnvelope() };
};
