// `GET` and `DELETE /current-api-session`: the caller's own API session, and logout.
import { ApiError } from '../errors/api-error.js';
import { envelope, emptyEnvelope } from '../http/envelope.js';
import type { OperationContext, OperationHandler } from '../http/operation.js';
import { apiSessionDetail } from './api-session-detail.js';
import { apiSessionById, deleteApiSession } from '../store/queries/api-sessions.js';
import { writeAreas } from '../store/store.js';

const apiSessionId = (context: OperationContext) => context.caller.session!.apiSessionId;

export const getCurrentAPISession: OperationHandler = {
  access: 'partial',
  async handle(context) {
    const { deps } = context;
    const detail = await deps.store.read(async (db) => {
      const row = await apiSessionById(db, apiSessionId(context));
      // The request's own session was there when the request was authenticated; a logout since is a 401.
      if (!row) throw new ApiError('UNAUTHORIZED');
      return apiSessionDetail(db, deps, row, context.caller.session.authQueries);
    });
    return { status: 200, json: envelope(detail) };
  },
};

export const deleteCurrentApiSession: OperationHandler = {
  access: 'partial',
  async handle(context) {
    const id = apiSessionId(context);
    const identityId = context.caller.session.identityId;
    await context.deps.store.transaction((tx) => deleteApiSession(tx, id), { touches: [writeAreas.identity(identityId)] });
    context.deps.apiSessions.forget(id);
    return { status: 200, json: emptyEnvelope() };
  },
};
