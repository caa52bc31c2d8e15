// Authenticator operations: admin CRUD and re-enroll, and the caller's own authenticators under /current-identity.
import { ApiError } from '../../errors/api-error.js';
import { createdEnvelope, emptyEnvelope, envelope } from '../../http/envelope.js';
import type { OperationContext, OperationHandler, OperationTable } from '../../http/operation.js';
import { create, detail, list, patch, remove, update } from '../../crud/crud-handlers.js';
import type { EntityDefinition } from '../../crud/define-entity.js';
import { toApiEntity } from '../../crud/entity-mapping.js';
import { deleteEntity, findEntity } from '../../crud/entity-store.js';
import { authenticatorById } from '../../store/queries/authenticators.js';
import { modifyEntity, requireEntity } from '../../crud/entity-writes.js';
import { columnIs } from '../../store/queries/scopes.js';
import type { Db } from '../../store/store.js';
import { verifyPassword } from '../../auth/password.js';
import { createEnrollment, futureInstant, makeRoomForEnrollment, type NewEnrollment } from '../../enrollment/create-enrollment.js';
import { authenticator } from './authenticator.definition.js';
import { endSessionsOf } from './authenticator.rules.js';

const callerId = (context: OperationContext) => context.caller.session!.identityId;

/** The caller's own authenticator; anyone else's is simply not found. */
async function requireOwn(db: Db, context: OperationContext) {
  const id = context.params.id as string;
  const found = await findEntity(db, authenticator, id);
  if (!found || found.identityId !== callerId(context)) throw ApiError.notFound('authenticator', id);
  return found;
}

/** What the caller sees of its own authenticators: upstream links each only to itself, under current-identity. */
const ownAuthenticator: EntityDefinition = {
  ...authenticator,
  links: (entity) => ({ self: { href: `./current-identity/authenticators/${String(entity.id)}` } }),
};

const listCurrentIdentityAuthenticators = list(ownAuthenticator, 'authenticated', {
  scope: (context) => Promise.resolve(columnIs('identity_id', callerId(context))),
});

const detailCurrentIdentityAuthenticator: OperationHandler = {
  access: 'authenticated',
  async handle(context) {
    const { deps, caller } = context;
    const data = await deps.store.read(async (db) => toApiEntity(ownAuthenticator, await requireOwn(db, context), { db, deps, caller }));
    return { status: 200, json: envelope(data) };
  },
};

/** Self-service change of username and password, proven by the current password (updb only). */
function modifyOwn(mode: 'update' | 'patch'): OperationHandler {
  return {
    access: 'authenticated',
    async handle(context) {
      const body = context.body as { currentPassword: string };
      const own = await context.deps.store.read((db) => requireOwn(db, context));
      if (own.method !== 'updb') throw new ApiError('CAN_NOT_UPDATE_AUTHENTICATOR');
      const matches = await verifyPassword(body.currentPassword, { hash: own.passwordHash as string, salt: own.passwordSalt as string });
      if (!matches) throw ApiError.invalidField('currentPassword', 'invalid current password', '******').as('UNAUTHORIZED');
      await modifyEntity(context.deps, authenticator, own.id, body, mode);
      return { status: 200, json: emptyEnvelope() };
    },
  };
}

/**
 * Turns an authenticator back into an enrollment of its kind (reference §10.3): cert → ottca when its certificate
 * came from a third-party CA, else ott; updb → updb with the same username. Upstream creates the enrollment and
 * then deletes the authenticator (ending the sessions it opened) in two steps; here all happens in one transaction.
 * 201 names the enrollment.
 */
const reEnrollAuthenticator: OperationHandler = {
  access: 'admin',
  async handle({ deps, params, body }) {
    const id = params.id as string;
    const now = deps.clock();
    // Upstream gives re-enroll enrollments a shortid (eid.New()).
    const enrollmentId = deps.ids.shortId();
    await deps.store.transaction(async (tx) => {
      const found = await requireEntity(tx, authenticator, id);
      const expiresAt = futureInstant((body as { expiresAt: string }).expiresAt, now, 'expiresAt must be in the future');
      const identityId = found.identityId;
      const caId = (await authenticatorById(tx, id))?.ca_id ?? undefined;
      const input: NewEnrollment =
        found.method === 'updb'
          ? { method: 'updb', identityId, username: found.username as string, expiresAt, id: enrollmentId }
          : { method: caId ? 'ottca' : 'ott', identityId, expiresAt, id: enrollmentId, ...(caId ? { caId } : {}) };
      await makeRoomForEnrollment(tx, identityId, input.method, now);
      await deleteEntity(tx, authenticator, id);
      await endSessionsOf(tx, found);
      await createEnrollment(tx, deps, input);
    });
    return { status: 201, json: createdEnvelope('enrollments', enrollmentId) };
  },
};

export const authenticatorOperations: OperationTable = {
  listAuthenticators: list(authenticator, 'admin'),
  detailAuthenticator: detail(authenticator, 'admin'),
  createAuthenticator: create(authenticator, 'admin'),
  updateAuthenticator: update(authenticator, 'admin'),
  patchAuthenticator: patch(authenticator, 'admin'),
  deleteAuthenticator: remove(authenticator, 'admin'),
  reEnrollAuthenticator,
};

/** Served by both APIs. */
export const currentIdentityAuthenticatorOperations: OperationTable = {
  listCurrentIdentityAuthenticators,
  detailCurrentIdentityAuthenticator,
  updateCurrentIdentityAuthenticator: modifyOwn('update'),
  patchCurrentIdentityAuthenticator: modifyOwn('patch'),
};
