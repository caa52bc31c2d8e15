// Identity operations: CRUD, sub-lists, disable / enable, role attributes, and the caller's own identity.
import { ApiError } from '../../errors/api-error.js';
import { emptyEnvelope, envelope, serializeJson } from '../../http/envelope.js';
import { ReadCaches } from '../../store/read-cache.js';
import { changeKeys, readKeys } from '../../store/changes.js';
import type { OperationHandler, OperationTable } from '../../http/operation.js';
import { childrenOf, create, detail, list, listSetField, patch, remove, update } from '../../crud/crud-handlers.js';
import { toApiEntity } from '../../crud/entity-mapping.js';
import { requireEntity } from '../../crud/entity-writes.js';
import { roleFilterScope } from '../../crud/role-filter.js';
import { disableIdentityIn, enableIdentityIn } from '../../auth/identity-disable-writes.js';
import { authenticator } from '../authenticator/authenticator.definition.js';
import { enrollment } from '../enrollment/enrollment.definition.js';
import { identity } from './identity.definition.js';

const IDENTITY_LIST_READS = readKeys.identities;

const LAST_WRITABLE_TIME = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * Disabling ends the identity's API sessions at once; `durationMinutes` 0 means until an admin enables it.
 * Upstream answers with no body (a quirk); we answer the empty envelope its contract declares.
 */
const disableIdentity: OperationHandler<'disableIdentity'> = {
  access: 'admin',
  async handle({ deps, params: { id }, body }) {
    const minutes = body.durationMinutes;
    if (minutes < 0) throw ApiError.invalidField('durationMinutes', 'durationMinutes must not be negative', minutes);
    // Upstream's time arithmetic overflows silently here; an end RFC 3339 cannot write is refused instead.
    if (deps.clock().getTime() + minutes * 60_000 > LAST_WRITABLE_TIME) {
      throw ApiError.invalidField('durationMinutes', 'durationMinutes must end before the year 10000', minutes);
    }
    const ended = await deps.store.transaction(async (tx) => {
      await requireEntity(tx, identity, id);
      return disableIdentityIn(tx, deps, id, minutes);
    });
    for (const sessionId of ended) deps.apiSessions.forget(sessionId);
    return { status: 200, json: emptyEnvelope() };
  },
};

const enableIdentity: OperationHandler<'enableIdentity'> = {
  access: 'admin',
  async handle({ deps, params: { id } }) {
    await deps.store.transaction(async (tx) => {
      await requireEntity(tx, identity, id);
      await enableIdentityIn(tx, deps, id);
    });
    return { status: 200, json: emptyEnvelope() };
  },
};

/**
 * Per controller: the serialised current-identity document of each identity, valid until the identity's own rows
 * change (its row, authenticators, API sessions, MFA, enrollments) or an auth policy or a CA (an enrollment's) does.
 */
const currentIdentityCaches = new ReadCaches<Buffer>();

/**
 * Every SDK reads this right after login and the admin console polls it, so the document is built once per
 * identity and data generation rather than per request.
 */
const getCurrentIdentity: OperationHandler<'getCurrentIdentity'> = {
  access: 'authenticated',
  async handle({ deps, caller }) {
    const identityId = caller.session.identityId;
    const dependsOn = [...changeKeys.ofIdentity(identityId), ...readKeys.currentIdentity];
    const body = await currentIdentityCaches.of(deps.store).get(identityId, dependsOn, () =>
      deps.store.read(async (db) => {
        const data = await toApiEntity(identity, await requireEntity(db, identity, identityId), { db, deps, caller });
        // Upstream's CurrentIdentityLinkFactory: the caller's own paths, MFA included.
        data._links = { mfa: { href: './current-identity/mfa' }, self: { href: './current-identity' } };
        // Kept as the bytes sent, so a request does not encode the text again.
        return Buffer.from(serializeJson(envelope(data)));
      }),
    );
    return { status: 200, raw: body, contentType: 'application/json' };
  },
};

export const identityOperations: OperationTable<'management'> = {
  // Consoles and scripts poll it: kept until a table its rows, computed fields (identity.rules.ts) or role filter read moves.
  listIdentities: list(identity, 'admin', {
    scope: roleFilterScope(identity),
    keep: { dependsOn: IDENTITY_LIST_READS },
  }),
  detailIdentity: detail(identity, 'admin'),
  createIdentity: create(identity, 'admin'),
  updateIdentity: update(identity, 'admin'),
  patchIdentity: patch(identity, 'admin'),
  deleteIdentity: remove(identity, 'admin'),
  getIdentityAuthenticators: list(authenticator, 'admin', { scope: childrenOf(identity, authenticator, 'identityId') }),
  getIdentityEnrollments: list(enrollment, 'admin', { scope: childrenOf(identity, enrollment, 'identityId') }),
  disableIdentity,
  enableIdentity,
  listIdentityRoleAttributes: listSetField(identity, 'roleAttributes', 'admin'),
};

/** Served by both APIs. */
export const currentIdentityOperations: OperationTable<'client' | 'management'> = { getCurrentIdentity };
