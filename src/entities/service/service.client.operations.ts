// What an identity sees on the client API: its services (with permissions, config and posture queries), a
// service's terminators, and when its service list last changed.
import { ApiError } from '../../errors/api-error.js';
import { envelope, listEnvelope, serializeJson } from '../../http/envelope.js';
import { ReadCaches } from '../../store/read-cache.js';
import { changeKeys, readKeys } from '../../store/changes.js';
import type { OperationContext, OperationHandler, OperationOf, OperationTable } from '../../http/operation.js';
import type { SessionCaller } from '../../http/request-context.js';
import { fieldIs, list } from '../../crud/crud-handlers.js';
import type { EntityDefinition } from '../../crud/define-entity.js';
import { entityRef, toApiEntities, toApiEntity } from '../../crud/entity-mapping.js';
import type { EntityValues } from '../../crud/entity-rules.js';
import { listEntities, rowToValues } from '../../crud/entity-store.js';
import { requireEntity } from '../../crud/entity-writes.js';
import { listQueryFrom } from '../../crud/list-params.js';
import { grantedServicePage } from '../../store/queries/service-access.js';
import type { Db } from '../../store/store.js';
import { resolveConfigTypes, selectionOf, storedConfigTypes } from '../../policy/config-expansion.js';
import type { ConfigTypeSelection } from '../../store/queries/configs.js';
import { canSeeService, type PermissionSource, type ServiceViewer } from '../../policy/service-access.js';
import { serviceListChangedAt } from '../../store/queries/service-lists.js';
import { sharedEdgeRouters } from '../../policy/session-edge-routers.js';
import { checkServiceAccessToken } from '../../auth/service-access-token.js';
import { terminator } from '../terminator/terminator.definition.js';
import { service } from './service.definition.js';
import { serviceView } from './service.rules.js';

type ListServices = OperationOf<'listServices', 'client'>;

function viewerOf({ session }: SessionCaller): ServiceViewer {
  return { identityId: session.identityId, apiSessionId: session.apiSessionId, isAdmin: session.isAdmin };
}

/** The repeated `configTypes` query parameter; undefined when absent, so the API session's types apply. */
function requestedConfigTypes(context: OperationContext<ListServices>): string[] | undefined {
  const value = context.query.configTypes ?? context.rawQuery.configTypes;
  if (value === undefined) return undefined;
  const values = Array.isArray(value) ? value : [value];
  return values.length > 0 ? values : undefined;
}

/** The service definition whose computed fields use these config types and permissions instead of the defaults. */
function withView(selection: ConfigTypeSelection | undefined, permissions?: PermissionSource): EntityDefinition {
  return { ...service, rules: { ...service.rules, extend: serviceView(selection, permissions) } };
}

/** A service the caller cannot see is as missing as one that does not exist (ziti `ReadForIdentityInTx`). */
async function requireVisibleService(db: Db, caller: SessionCaller, id: string): Promise<EntityValues> {
  if (!(await canSeeService(db, viewerOf(caller), id))) throw ApiError.notFound(service.type, id);
  return requireEntity(db, service, id);
}

/** Per controller: each API session's config type selection (made at login), until its identity's rows or a config type change. */
const sessionSelections = new ReadCaches<ConfigTypeSelection>();

/**
 * Admins list every service; anyone else the services a policy grants them, read from the identity's
 * `identity_services` pairs with the counts that make their permissions. `?configTypes=` (names or ids, `all`)
 * replaces the session's types for this request.
 */
const listServices: OperationHandler<'listServices', 'client'> = {
  access: 'authenticated',
  async handle(context) {
    if (!context.caller.session.isAdmin) return listGrantedServices.handle(context);
    const requested = requestedConfigTypes(context);
    const selection =
      requested && selectionOf(await context.deps.store.read((db) => resolveConfigTypes(db, requested)));
    return list(withView(selection), 'authenticated').handle(context);
  },
};

const listGrantedServices = list<ListServices, 'authenticated'>(service, 'authenticated', {
  async read(context, db, query) {
    const viewer = viewerOf(context.caller);
    const requested = requestedConfigTypes(context);
    const selection = requested
      ? selectionOf(await resolveConfigTypes(db, requested))
      : await sessionSelections
          .of(context.deps.store)
          .get(viewer.apiSessionId, [...changeKeys.ofIdentity(viewer.identityId), ...readKeys.configTypes], () =>
            storedConfigTypes(db, context.caller.session.configTypes),
          );
    const page = await grantedServicePage(db, viewer.identityId, query);
    const pairs = new Map(page.rows.map((row) => [row.id, { dial: row.pair_dial, bind: row.pair_bind }]));
    const rows = page.rows.map((row) => rowToValues(service, row));
    const { deps, caller } = context;
    return {
      rows,
      data: await toApiEntities(withView(selection, { pairs }), rows, { db, deps, caller }),
      totalCount: page.totalCount,
    };
  },
});

/** Always the API session's config types: upstream's detail reads no `configTypes` parameter. */
const detailService: OperationHandler<'detailService', 'client'> = {
  access: 'authenticated',
  async handle({ deps, caller, params: { id } }) {
    const data = await deps.store.read(async (db) =>
      toApiEntity(service, await requireVisibleService(db, caller, id), { db, deps, caller }),
    );
    return { status: 200, json: envelope(data) };
  },
};

/** The client's terminator shape: no address, binding, cost or router reference (`terminatorClientDetail`). */
function clientTerminator(values: EntityValues, owner: EntityValues): Record<string, unknown> {
  return {
    _links: terminator.links(values),
    createdAt: values.createdAt,
    id: values.id,
    tags: values.tags ?? {},
    updatedAt: values.updatedAt,
    identity: values.identity ?? '',
    routerId: values.router,
    service: entityRef(service, owner),
    serviceId: owner.id,
  };
}

const listServiceTerminators: OperationHandler<'listServiceTerminators', 'client'> = {
  access: 'authenticated',
  async handle(context) {
    const { id } = context.params;
    const query = listQueryFrom(context, terminator.symbols);
    const { data, totalCount } = await context.deps.store.read(async (db) => {
      const owner = await requireVisibleService(db, context.caller, id);
      const page = await listEntities(db, terminator, query, fieldIs(terminator, 'service', owner.id));
      return { data: page.rows.map((row) => clientTerminator(row, owner)), totalCount: page.totalCount };
    });
    const pagination = { limit: query.limit, offset: query.offset, totalCount };
    return { status: 200, json: listEnvelope(data, pagination, terminator.filterableFields) };
  },
};

/**
 * Per controller: each API session's serialised answer, valid until its identity's own rows change (its API
 * sessions, its service-list mark, which policy changes move as strict writes: `identity:*`).
 */
const serviceUpdatesCaches = new ReadCaches<Buffer | undefined>();

/** SDKs and tunnellers poll this every few seconds per session, so the answer is read and serialised once per write. */
const listServiceUpdates: OperationHandler<'listServiceUpdates'> = {
  access: 'authenticated',
  async handle({ deps, caller }) {
    const { apiSessionId, identityId } = caller.session;
    const body = await serviceUpdatesCaches
      .of(deps.store)
      .get(apiSessionId, changeKeys.ofIdentity(identityId), async () => {
        const lastChangeAt = await deps.store.read((db) => serviceListChangedAt(db, apiSessionId));
        return lastChangeAt === undefined ? undefined : Buffer.from(serializeJson(envelope({ lastChangeAt })));
      });
    // The session ended between the access check and here (logout in flight): answer as for any ended session.
    if (body === undefined) throw new ApiError('UNAUTHORIZED');
    return { status: 200, raw: body, contentType: 'application/json' };
  },
};

/**
 * The edge routers a session for this service may use (ziti `routes/service_router.go` listClientEdgeRouters): the
 * same selection and shape as a session's, as one detail document; paging parameters are accepted and ignored, as
 * upstream does. A `session-token` header, when sent, must be a service-access token of the caller's API session.
 */
const listServiceEdgeRouters: OperationHandler<'listServiceEdgeRouters', 'client'> = {
  access: 'authenticated',
  async handle({ deps, caller, headers, params: { id: serviceId } }) {
    const { session } = caller;
    const sessionToken = headers['session-token'];
    if (sessionToken !== undefined)
      await checkServiceAccessToken(deps.pki, sessionToken, session.apiSessionId, deps.clock());
    const edgeRouters = await deps.store.read(async (db) => {
      // Upstream answers this one with a bare NOT_FOUND, without the usual cause.
      if (!(await canSeeService(db, viewerOf(caller), serviceId))) throw new ApiError('NOT_FOUND');
      return sharedEdgeRouters(db, session.identityId, serviceId);
    });
    return { status: 200, json: envelope({ edgeRouters }) };
  },
};

export const clientServiceViewOperations: OperationTable<'client'> = {
  listServices,
  detailService,
  listServiceTerminators,
  listServiceUpdates,
  listServiceEdgeRouters,
};
