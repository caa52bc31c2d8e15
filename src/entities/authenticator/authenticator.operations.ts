// Authenticator operations: admin CRUD and re-enroll, and the caller's own authenticators under /current-identity.
import { ApiError } from '../../errors/api-error.js';
import { createdEnvelope, emptyEnvelope } from '../../http/envelope.js';
import type { OperationHandler, OperationShape, OperationTable } from '../../http/operation.js';
import type { SessionCaller } from '../../http/request-context.js';
import { create, detail, fieldIs, list, patch, remove, update, type ListScope } from '../../crud/crud-handlers.js';
import type { EntityDefinition } from '../../crud/define-entity.js';
import { authenticatorById } from '../../store/queries/authenticators.js';
import { modifyEntity, removeEntityIn, requireEntity } from '../../crud/entity-writes.js';
import { verifyPassword } from '../../auth/password.js';
import {
  createEnrollment,
  futureInstant,
  makeRoomForEnrollment,
  type NewEnrollment,
} from '../../enrollment/create-enrollment.js';
import { authenticator } from './authenticator.definition.js';
import { enrollment } from '../enrollment/enrollment.definition.js';

/** The caller's own authenticators; anyone else's is simply not found. */
const ownScope: ListScope<OperationShape, SessionCaller> = ({ caller }) =>
  Promise.resolve(fieldIs(authenticator, 'identityId', caller.session.identityId));
const own = { scope: ownScope };

/** What the caller sees of its own authenticators: upstream links each only to itself, under current-identity. */
const ownAuthenticator: EntityDefinition = {
  ...authenticator,
  links: (entity) => ({ self: { href: `./current-identity/authenticators/${String(entity.id)}` } }),
};

/** Self-service change of username and password, proven by the current password (updb only). */
function modifyOwn<Op extends 'updateCurrentIdentityAuthenticator' | 'patchCurrentIdentityAuthenticator'>(
  mode: 'update' | 'patch',
): OperationHandler<Op> {
  return {
    access: 'authenticated',
    async handle(context) {
      const { body, params } = context;
      const found = await context.deps.store.read(async (db) =>
        requireEntity(db, authenticator, params.id, await ownScope(context, db)),
      );
      const { method, passwordHash: hash, passwordSalt: salt } = found;
      // Only updb authenticators hold a password, and each of them does.
      if (method !== 'updb' || hash === null || salt === null) throw new ApiError('CAN_NOT_UPDATE_AUTHENTICATOR');
      const matches = await verifyPassword(body.currentPassword, { hash, salt });
      if (!matches)
        throw ApiError.invalidField('currentPassword', 'invalid current password', '******').as('UNAUTHORIZED');
      await modifyEntity(context.deps, authenticator, found.id, body, mode);
      return { status: 200, json: emptyEnvelope() };
    },
  };
}

/**
 * Turns an authenticator back into an enrollment of its kind (docs/reference/pki-enrollment-auth.md §10.3): cert →
 * ottca when its certificate came from a third-party CA, else ott; updb → updb with the same username. Upstream creates
 * the enrollment and then deletes the authenticator (ending the sessions it opened) in two steps; here all happens in
 * one transaction. 201 names the enrollment.
 */
const reEnrollAuthenticator: OperationHandler<'reEnrollAuthenticator'> = {
  access: 'admin',
  async handle({ deps, params, body }) {
    const { id } = params;
    const now = deps.clock();
    // Upstream gives re-enroll enrollments a shortid (eid.New()).
    const enrollmentId = deps.ids.shortId();
    await deps.store.transaction(async (tx) => {
      const found = await requireEntity(tx, authenticator, id);
      const expiresAt = futureInstant(body.expiresAt, now, 'expiresAt must be in the future');
      const identityId = found.identityId;
      const caId = (await authenticatorById(tx, id))?.ca_id || undefined;
      const { method, username } = found;
      if (method === 'updb' && username === null) throw new Error(`updb authenticator ${id} has no username`);
      const input: NewEnrollment =
        method === 'updb'
          ? { method: 'updb', identityId, username: username ?? undefined, expiresAt, id: enrollmentId }
          : { method: caId ? 'ottca' : 'ott', identityId, expiresAt, id: enrollmentId, caId };
      await makeRoomForEnrollment(tx, identityId, input.method, now);
      // Its rules end the API sessions it opened.
      await removeEntityIn(tx, deps, authenticator, id);
      await createEnrollment(tx, deps, input);
    });
    return { status: 201, json: createdEnvelope(enrollment.path, enrollmentId) };
  },
};

export const authenticatorOperations: OperationTable<'management'> = {
  listAuthenticators: list(authenticator, 'admin'),
  detailAuthenticator: detail(authenticator, 'admin'),
  createAuthenticator: create(authenticator, 'admin'),
  updateAuthenticator: update(authenticator, 'admin'),
  patchAuthenticator: patch(authenticator, 'admin'),
  deleteAuthenticator: remove(authenticator, 'admin'),
  reEnrollAuthenticator,
};

/** Served by both APIs. */
export const currentIdentityAuthenticatorOperations: OperationTable<'client' | 'management'> = {
  listCurrentIdentityAuthenticators: list(ownAuthenticator, 'authenticated', own),
  detailCurrentIdentityAuthenticator: detail(ownAuthenticator, 'authenticated', own),
  updateCurrentIdentityAuthenticator: modifyOwn<'updateCurrentIdentityAuthenticator'>('update'),
  patchCurrentIdentityAuthenticator: modifyOwn<'patchCurrentIdentityAuthenticator'>('patch'),
};
