// `updb`: a one-time token and a chosen password become a `updb` authenticator with the enrollment's username.
import { ApiError } from '../../errors/api-error.js';
import { isJsonObject } from '../../lib/object-path.js';
import { emptyEnvelope } from '../../http/envelope.js';
import { createEntityIn } from '../../crud/entity-writes.js';
import { authenticator } from '../../entities/authenticator/authenticator.definition.js';
import type { EnrollMethod } from './enroll-method.js';
import { consumeEnrollment } from '../enrollment-record.js';
import { requireUnusedUsername } from '../create-enrollment.js';

/** `/enroll?method=updb` declares no body; upstream answers a missing password with a 500 (quirk Q7), we with a 400. */
function passwordFrom(body: unknown): unknown {
  const password = isJsonObject(body) ? body.password : undefined;
  if (typeof password !== 'string')
    throw ApiError.invalidField('password', 'password is required', password === undefined ? undefined : '******');
  return password;
}

/**
 * The authenticator is made by the authenticator rules, like `POST /authenticators`: the identity's auth policy
 * decides which passwords are acceptable, and an identity that already has a password authenticator gets 409
 * MAX_AUTHENTICATOR_METHODS_REACHED with its token still unused.
 */
export const enrollWithUpdb: EnrollMethod = async (context, enrollment) => {
  const { deps } = context;
  const { identityId, username } = enrollment;
  if (identityId === null || !username) throw new ApiError('INVALID_ENROLLMENT_TOKEN');
  // A `username` in the body is ignored, as upstream: the admin chose it when creating the enrollment.
  const password = passwordFrom(context.body);
  await deps.store.transaction(async (tx) => {
    await consumeEnrollment(tx, enrollment);
    // Usernames are checked when the enrollment is made, but an admin may have taken it for another identity since.
    await requireUnusedUsername(tx, username, 'username', deps.clock());
    await createEntityIn(
      tx,
      deps,
      authenticator,
      { method: 'updb', identityId, username, password },
      { id: deps.ids.shortId() },
    );
  });
  return { status: 200, json: emptyEnvelope() };
};
