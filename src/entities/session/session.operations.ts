// Sessions on both APIs: on the client API any caller lists, reads and deletes its own and admins everyone's; the
// management API is admin-only, as design part 0 has it for every management route (upstream lets any
// authenticated caller in there too, to the same own-sessions view the client API gives). Creation lives in
// create-session.ts.
import { ApiError } from '../../errors/api-error.js';
import { emptyEnvelope, envelope } from '../../http/envelope.js';
import type { OperationContext, OperationHandler, OperationTable } from '../../http/operation.js';
import { list } from '../../crud/crud-handlers.js';
import type { EntityValues } from '../../crud/entity-rules.js';
import { toApiEntity } from '../../crud/entity-mapping.js';
import { deleteEntity, findEntity } from '../../crud/entity-store.js';
import { columnIs, everyRow } from '../../store/queries/scopes.js';
import type { Db } from '../../store/store.js';
import { createSession } from './create-session.js';
import { session } from './session.definition.js';

/** Another identity's session is as missing as one that does not exist (`ReadForIdentity`). */
async function requireOwnSession(db: Db, context: OperationContext): Promise<EntityValues> {
  const id = context.params.id as string;
  const caller = context.caller.session!;
  const found = await findEntity(db, session, id);
  if (!found || (!caller.isAdmin && found.identityId !== caller.identityId)) throw ApiError.notFound(session.type, id);
  return found;
}

const listSessions = list(session, 'authenticated', {
  scope: ({ caller }) => {
    const own = caller.session!;
    return Promise.resolve(own.isAdmin ? everyRow : columnIs('identity_id', own.identityId));
  },
});

const detailSession: OperationHandler = {
  access: 'authenticated',
  async handle(context) {
    const { deps, caller } = context;
    const data = await deps.store.read(async (db) => toApiEntity(session, await requireOwnSession(db, context), { db, deps, caller }));
    return { status: 200, json: envelope(data) };
  },
};

const deleteSession: OperationHandler = {
  access: 'authenticated',
  async handle(context) {
    await context.deps.store.transaction(async (tx) => {
      const found = await requireOwnSession(tx, context);
      await deleteEntity(tx, session, found.id);
    });
    return { status: 200, json: emptyEnvelope() };
  },
};

/**
 * The routers a session's circuits take; circuits live in routers, which never connect here: always empty. An
 * unknown id is 200 with an empty path too: upstream's `SessionRouter.DetailRoutePath` only scans the circuits for
 * the id and never looks the session up.
 */
const detailSessionRoutePath: OperationHandler = {
  access: 'admin',
  handle: () => Promise.resolve({ status: 200, json: envelope({ routePath: [] }) }),
};

export const clientSessionOperations: OperationTable = { listSessions, detailSession, deleteSession, createSession };

const adminOnly = (handler: OperationHandler): OperationHandler => ({ ...handler, access: 'admin' });

export const managementSessionOperations: OperationTable = {
  listSessions: adminOnly(listSessions),
  detailSession: adminOnly(detailSession),
  deleteSession: adminOnly(deleteSession),
  detailSessionRoutePath,
};
