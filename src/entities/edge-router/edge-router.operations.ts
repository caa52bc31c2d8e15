// The management API's /edge-routers operations (re-enroll included) and the edge router role attributes, admin-only.
import { emptyEnvelope, envelope } from '../../http/envelope.js';
import type { OperationHandler, OperationTable } from '../../http/operation.js';
import {
  create,
  fieldIs,
  list,
  listSetField,
  patch,
  remove,
  update,
  type ListScope,
} from '../../crud/crud-handlers.js';
import { roleFilterScope } from '../../crud/role-filter.js';
import { allOf } from '../../store/queries/scopes.js';
import { toApiEntity } from '../../crud/entity-mapping.js';
import { requireEntity } from '../../crud/entity-writes.js';
import { restartRouterEnrollment } from '../shared/router-enrollment.js';
import { edgeRouter } from './edge-router.definition.js';
import { requireEdgeRouter } from './edge-router.rules.js';

const roleFilter = roleFilterScope(edgeRouter);

/** Transit routers live in the same table, so the list sees only edge rows; `roleFilter` narrows it further. */
const edgeRoutersOnly: ListScope = async (context, db) =>
  allOf(fieldIs(edgeRouter, 'isEdge', 1), await roleFilter(context, db));

const detailEdgeRouter: OperationHandler<'detailEdgeRouter'> = {
  access: 'admin',
  async handle({ deps, caller, params: { id } }) {
    const data = await deps.store.read(async (db) => {
      const found = requireEdgeRouter(await requireEntity(db, edgeRouter, id));
      return toApiEntity(edgeRouter, found, { db, deps, caller });
    });
    return { status: 200, json: envelope(data) };
  },
};

/**
 * Back to unenrolled with a fresh erott enrollment; the old certificate stops identifying the router
 * (docs/reference/pki-enrollment-auth.md §3.7).
 */
const reEnrollEdgeRouter: OperationHandler<'reEnrollEdgeRouter'> = {
  access: 'admin',
  async handle({ deps, params: { id } }) {
    await deps.store.transaction(async (tx) => {
      requireEdgeRouter(await requireEntity(tx, edgeRouter, id));
      await restartRouterEnrollment(tx, deps, id, 'erott');
    });
    return { status: 200, json: emptyEnvelope() };
  },
};

export const edgeRouterOperations: OperationTable<'management'> = {
  listEdgeRouters: list(edgeRouter, 'admin', { scope: edgeRoutersOnly }),
  createEdgeRouter: create(edgeRouter, 'admin'),
  detailEdgeRouter,
  updateEdgeRouter: update(edgeRouter, 'admin'),
  patchEdgeRouter: patch(edgeRouter, 'admin'),
  deleteEdgeRouter: remove(edgeRouter, 'admin'),
  listEdgeRouterRoleAttributes: listSetField(edgeRouter, 'roleAttributes', 'admin'),
  reEnrollEdgeRouter,
};
