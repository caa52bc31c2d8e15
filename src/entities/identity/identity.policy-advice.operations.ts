// `GET /identities/{id}/policy-advice/{serviceId}`: may this identity reach this service, and over which routers.
import { envelope } from '../../http/envelope.js';
import type { OperationHandler, OperationTable } from '../../http/operation.js';
import { entityRef } from '../../crud/entity-mapping.js';
import { requireEntity } from '../../crud/entity-writes.js';
import { analyzeServiceReachability } from '../../policy/policy-advice.js';
import { edgeRouterLiveStates } from '../../policy/session-edge-routers.js';
import { edgeRouter } from '../edge-router/edge-router.definition.js';
import { service } from '../service/service.definition.js';
import { identity } from './identity.definition.js';

/**
 * Upstream's `policyAdvice` model marks every field omitempty, so a false flag, a zero count and an empty router
 * list are left out of the JSON rather than sent; we send what upstream sends.
 */
const getIdentityPolicyAdvice: OperationHandler = {
  access: 'admin',
  async handle({ deps, params }) {
    const data = await deps.store.read(async (db) => {
      const who = await requireEntity(db, identity, params.id as string);
      const what = await requireEntity(db, service, params.serviceId as string);
      const advice = await analyzeServiceReachability(db, who.id, what.id);
      const states = await edgeRouterLiveStates(db, advice.commonRouters.map((router) => router.id));
      const commonRouters = advice.commonRouters.map((router) => ({ ...entityRef(edgeRouter, router), isOnline: states.get(router.id)!.isOnline }));
      return {
        identityId: who.id,
        identity: entityRef(identity, who),
        serviceId: what.id,
        service: entityRef(service, what),
        ...(advice.isDialAllowed ? { isDialAllowed: true } : {}),
        ...(advice.isBindAllowed ? { isBindAllowed: true } : {}),
        ...(advice.identityRouterCount > 0 ? { identityRouterCount: advice.identityRouterCount } : {}),
        ...(advice.serviceRouterCount > 0 ? { serviceRouterCount: advice.serviceRouterCount } : {}),
        ...(commonRouters.length > 0 ? { commonRouters } : {}),
      };
    });
    return { status: 200, json: envelope(data) };
  },
};

export const identityPolicyAdviceOperations: OperationTable = { getIdentityPolicyAdvice };
