// An edge router's policy-derived sub-lists (admin), and the client's own usable edge routers, from link tables.
import { listEnvelope } from '../../http/envelope.js';
import type { OperationHandler, OperationTable } from '../../http/operation.js';
import { fieldIs, linkedTo, list, type LinkTable } from '../../crud/crud-handlers.js';
import { toApiEntities } from '../../crud/entity-mapping.js';
import { listEntities } from '../../crud/entity-store.js';
import { listQueryFrom } from '../../crud/list-params.js';
import { allOf, everyRow, linkedTo as linkedRows } from '../../store/queries/scopes.js';
import { edgeRouterPolicy } from '../edge-router-policy/edge-router-policy.definition.js';
import { identity } from '../identity/identity.definition.js';
import { associatedService } from '../service/service.definition.js';
import { serviceEdgeRouterPolicy } from '../service-edge-router-policy/service-edge-router-policy.definition.js';
import { edgeRouter } from './edge-router.definition.js';
import { requireEdgeRouter } from './edge-router.rules.js';
import { policyLinks } from '../../store/queries/policy-tables.js';

/** A transit router shares the `routers` table; as a parent it is not found, as on the edge router detail. */
const ofEdgeRouter = (link: LinkTable) => linkedTo(edgeRouter, link, requireEdgeRouter);

/** The client shape (`currentIdentityEdgeRouterDetail`): the base entity and the common edge router properties. */
const CLIENT_FIELDS = [
  '_links',
  'createdAt',
  'id',
  'tags',
  'updatedAt',
  'cost',
  'disabled',
  'hostname',
  'isOnline',
  'name',
  'noTraversal',
  'supportedProtocols',
  'syncStatus',
];

const toClientShape = (router: Record<string, unknown>) =>
  Object.fromEntries(CLIENT_FIELDS.map((field) => [field, router[field]]));

/**
 * The edge routers an SDK may connect through (ziti `current_identity_router.go` `listEdgeRouters`): verified
 * ones only; all of them for an admin, otherwise those an edge router policy grants the caller. Filter and paging
 * work as on any list, against the edge router's symbols.
 */
const getCurrentIdentityEdgeRouters: OperationHandler<'getCurrentIdentityEdgeRouters'> = {
  access: 'authenticated',
  async handle(context) {
    const { deps, caller } = context;
    const { session } = caller;
    const query = listQueryFrom(context, edgeRouter.symbols);
    const granted = session.isAdmin ? everyRow : linkedRows(policyLinks.identityEdgeRouters, session.identityId);
    const { data, totalCount } = await deps.store.read(async (db) => {
      const page = await listEntities(
        db,
        edgeRouter,
        query,
        allOf(fieldIs(edgeRouter, 'isEdge', 1), fieldIs(edgeRouter, 'isVerified', 1), granted),
      );
      const routers = await toApiEntities(edgeRouter, page.rows, { db, deps, caller });
      return { data: routers.map(toClientShape), totalCount: page.totalCount };
    });
    const pagination = { limit: query.limit, offset: query.offset, totalCount };
    return { status: 200, json: listEnvelope(data, pagination, edgeRouter.filterableFields) };
  },
};

export const edgeRouterLinkOperations: OperationTable<'management'> = {
  listEdgeRouterEdgeRouterPolicies: list(edgeRouterPolicy, 'admin', {
    scope: ofEdgeRouter(policyLinks.edgeRouterEdgeRouterPolicies),
  }),
  listEdgeRouterServiceEdgeRouterPolicies: list(serviceEdgeRouterPolicy, 'admin', {
    scope: ofEdgeRouter(policyLinks.edgeRouterServiceEdgeRouterPolicies),
  }),
  listEdgeRouterIdentities: list(identity, 'admin', {
    scope: ofEdgeRouter(policyLinks.edgeRouterIdentities),
  }),
  listEdgeRouterServices: list(associatedService, 'admin', {
    scope: ofEdgeRouter(policyLinks.edgeRouterServices),
  }),
};

export const currentIdentityEdgeRouterOperations: OperationTable<'client'> = { getCurrentIdentityEdgeRouters };
