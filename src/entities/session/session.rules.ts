// How sessions read: references to their API session, service and service policies, and the edge routers they
// may use (ziti `routes/session_api_model.go` MapSessionToRestModel).
import { entityRef } from '../../crud/entity-mapping.js';
import type { EntityRules, EntityValues, ReadContext } from '../../crud/entity-rules.js';
import { sharedEdgeRouters } from '../../policy/session-edge-routers.js';
import type { Db } from '../../store/store.js';
import { service } from '../service/service.definition.js';
import { servicePolicy } from '../service-policy/service-policy.definition.js';

/** An API session reference: upstream gives it no name, so the key is left out. */
function apiSessionRef(id: string): Record<string, unknown> {
  return { _links: { self: { href: `./api-sessions/${id}` }, sessions: { href: `./api-sessions/${id}/sessions` } }, entity: 'api-sessions', id };
}

async function namesOf(db: Db, table: string, ids: readonly string[]): Promise<Map<string, string>> {
  const unique = [...new Set(ids)];
  const rows = unique.length > 0 ? await db.selectFrom(table).select(['id', 'name']).where('id', 'in', unique).execute() : [];
  return new Map(rows.map((row) => [row.id as string, row.name as string]));
}

/**
 * The `sessionDetail` fields of a page of sessions; with `withPolicies` also `servicePolicies` (the management
 * shape, which both APIs list and show; only the create response leaves it out).
 */
export async function sessionViews({ db, caller }: ReadContext, sessions: readonly EntityValues[], withPolicies: boolean): Promise<EntityValues[]> {
  const serviceNames = await namesOf(db, 'services', sessions.map((s) => s.serviceId as string));
  const policyIds = (s: EntityValues) => (s.servicePolicies ?? []) as string[];
  const policyNames = withPolicies ? await namesOf(db, 'service_policies', sessions.flatMap(policyIds)) : new Map<string, string>();
  const views: EntityValues[] = [];
  for (const s of sessions) {
    const serviceId = s.serviceId as string;
    const edgeRouters = (await sharedEdgeRouters(db, s.identityId as string, serviceId)).map((router) => ({ ...router, urls: router.supportedProtocols }));
    views.push({
      apiSession: apiSessionRef(s.apiSessionId as string),
      apiSessionId: s.apiSessionId,
      edgeRouters,
      identityId: s.identityId,
      service: entityRef(service, { id: serviceId, name: serviceNames.get(serviceId) ?? '' }),
      serviceId,
      // A token is the session's credential: upstream shows everyone's to admins, we show only the caller's own
      // (as for API sessions), so listing sessions never hands out another identity's.
      token: caller?.session?.identityId === s.identityId ? s.token : '',
      type: s.type,
      // A policy deleted since the session was made is left out, as upstream's mapper skips it.
      ...(withPolicies
        ? { servicePolicies: policyIds(s).filter((id) => policyNames.has(id)).map((id) => entityRef(servicePolicy, { id, name: policyNames.get(id) })) }
        : {}),
    });
  }
  return views;
}

export const sessionRules: EntityRules = {
  extend: (context, sessions) => sessionViews(context, sessions, true),
};
