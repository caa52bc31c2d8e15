// `GET` and `DELETE /current-api-session`: the caller's own API session, and logout.
import { envelope, emptyEnvelope } from '../http/envelope.js';
import type { OperationContext, OperationHandler } from '../http/operation.js';
import { apiSessionDetail } from './api-session-detail.js';
import type { ApiSessionRow } from './api-sessions.js';

const apiSessionId = (context: OperationContext) => context.caller.session!.apiSessionId;

export const getCurrentAPISession: OperationHandler = {
  access: 'partial',
  async handle(context) {
    const { deps } = context;
    const detail = await deps.store.read(async (db) => {
      const row = (await db.selectFrom('api_sessions').selectAll().where('id', '=', apiSessionId(context)).executeTakeFirstOrThrow()) as ApiSessionRow;
      return apiSessionDetail(db, deps, row, context.caller.session!.authQueries);
    });
    return { status: 200, json: envelope(detail) };
  },
};

export const deleteCurrentApiSession: OperationHandler = {
  access: 'partial',
  async handle(context) {
    const id = apiSessionId(context);
    await context.deps.store.transaction((tx) => tx.deleteFrom('api_sessions').where('id', '=', id).execute());
    context.deps.apiSessions.forget(id);
    return { status: 200, json: emptyEnvelope() };
  },
};
