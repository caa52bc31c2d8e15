// How sessions read: references to their API session, service and service policies, and the edge routers they
// may use (ziti `routes/session_api_model.go` MapSessionToRestModel).
import { entityRef } from '../../crud/entity-mapping.js';
import type { EntityRules, ReadContext } from '../../crud/entity-rules.js';
import { sharedEdgeRouters, type CommonEdgeRouter } from '../../policy/session-edge-routers.js';
import type { RequestContext } from '../../http/request-context.js';
import { named, namesOf } from '../../store/queries/references.js';
import { service } from '../service/service.definition.js';
import { servicePolicy } from '../service-policy/service-policy.definition.js';
import type { Session } from './session.fields.js';

/** A session's link beyond `self`. */
export const routePathHref = (id: string) => `./sessions/${id}/route-path`;

/** An API session reference: upstream gives it no name, so the key is left out. */
function apiSessionRef(id: string): Record<string, unknown> {
  return {
    _links: { self: { href: `./api-sessions/${id}` }, sessions: { href: `./api-sessions/${id}/sessions` } },
    entity: 'api-sessions',
    id,
  };
}

/**
 * A session as both APIs show it: the base entity and the `sessionDetail` fields, with its service's name and the
 * edge routers it may use; `servicePolicies` (the management shape, which both APIs list and show) only when given,
 * as the create response leaves it out.
 */
export function sessionDetail(
  s: Session,
  serviceName: string,
  edgeRouters: readonly CommonEdgeRouter[],
  caller: RequestContext | undefined,
  servicePolicies?: unknown[],
): Record<string, unknown> {
  const { serviceId, id } = s;
  return {
    _links: { self: { href: `./sessions/${id}` }, 'route-path': { href: routePathHref(id) } },
    createdAt: s.createdAt,
    id,
    tags: s.tags ?? {},
    updatedAt: s.updatedAt,
    apiSession: apiSessionRef(s.apiSessionId),
    apiSessionId: s.apiSessionId,
    // `urls` repeats `supportedProtocols` for older SDKs (deprecated upstream).
    edgeRouters: edgeRouters.map((router) => ({ ...router, urls: router.supportedProtocols })),
    identityId: s.identityId,
    service: entityRef(service, { id: serviceId, name: serviceName }),
    serviceId,
    // A token is the session's credential: upstream shows everyone's to admins, we show only the caller's own
    // (as for API sessions), so listing sessions never hands out another identity's.
    token: caller?.session?.identityId === s.identityId ? s.token : '',
    type: s.type,
    ...(servicePolicies ? { servicePolicies } : {}),
  };
}

/** The detail of a page of sessions, with their service policies (a policy deleted since is left out, as upstream). */
async function sessionViews(
  { db, caller }: ReadContext,
  sessions: readonly Session[],
): Promise<Record<string, unknown>[]> {
  const serviceNames = await namesOf(
    db,
    named.service,
    sessions.map((s) => s.serviceId),
  );
  const policyIds = (s: Session) =>
    Array.isArray(s.servicePolicies) ? s.servicePolicies.filter((id): id is string => typeof id === 'string') : [];
  const policyNames = await namesOf(db, named.servicePolicy, sessions.flatMap(policyIds));
  const views: Record<string, unknown>[] = [];
  for (const s of sessions) {
    const { serviceId } = s;
    const edgeRouters = await sharedEdgeRouters(db, s.identityId, serviceId);
    const policies = policyIds(s)
      .filter((id) => policyNames.has(id))
      .map((id) => entityRef(servicePolicy, { id, name: policyNames.get(id) }));
    views.push(sessionDetail(s, serviceNames.get(serviceId) ?? '', edgeRouters, caller, policies));
  }
  return views;
}

export const sessionRules: EntityRules<Session> = { extend: sessionViews };
