// `GET` and `DELETE /current-api-session`: the caller's own API session, and logout.
import { ApiError } from '../errors/api-error.js';
import { envelope, emptyEnvelope } from '../http/envelope.js';
import type { OperationHandler } from '../http/operation.js';
import { apiSessionDetail } from './api-session-detail.js';
import { apiSessionById, deleteApiSession } from '../store/queries/api-sessions.js';
import { recordApiSessionsEnding } from '../events/edge-session-events.js';
import { writeAreas } from '../store/store.js';

export const getCurrentAPISession: OperationHandler<'getCurrentAPISession'> = {
  access: 'partial',
  async handle({ deps, caller }) {
    const { apiSessionId, authQueries } = caller.session;
    const detail = await deps.store.read(async (db) => {
      const row = await apiSessionById(db, apiSessionId);
      // The request's own session was there when the request was authenticated; a logout since is a 401.
      if (!row) throw new ApiError('UNAUTHORIZED');
      return apiSessionDetail(db, deps, row, authQueries);
    });
    return { status: 200, json: envelope(detail) };
  },
};

export const deleteCurrentApiSession: OperationHandler<'deleteCurrentApiSession'> = {
  access: 'partial',
  async handle({ deps, caller }) {
    const { apiSessionId, identityId } = caller.session;
    await deps.store.transaction(
      async (tx) => {
        const ending = await apiSessionById(tx, apiSessionId);
        if (ending) await recordApiSessionsEnding(tx, [ending]);
        await deleteApiSession(tx, apiSessionId);
      },
      { touches: [writeAreas.identity(identityId)] },
    );
    deps.apiSessions.forget(apiSessionId);
    return { status: 200, json: emptyEnvelope() };
  },
};
