import type { OperationHandler, OperationTable } from '../../http/operation.js';
import { emptyEnvelope } from '../../http/envelope.js';
import { detail, list } from '../../crud/crud-handlers.js';
import { removeEntity } from '../../crud/entity-writes.js';
import { apiSession } from './api-session.definition.js';

/** An admin ends someone's API session; its cached activity goes with it. */
const deleteAPISessions: OperationHandler<'deleteAPISessions'> = {
  access: 'admin',
  async handle({ deps, params: { id } }) {
    await removeEntity(deps, apiSession, id);
    deps.apiSessions.forget(id);
    return { status: 200, json: emptyEnvelope() };
  },
};

export const apiSessionOperations: OperationTable<'management'> = {
  listAPISessions: list(apiSession, 'admin'),
  detailAPISessions: detail(apiSession, 'admin'),
  deleteAPISessions,
};
