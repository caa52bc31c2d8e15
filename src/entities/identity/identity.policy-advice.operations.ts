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
import { omitEmpty } from '../../lib/omit-empty.js';

/**
 * Upstream's `policyAdvice` model marks every field omitempty, so a false flag, a zero count and an empty router
 * list are left out of the JSON rather than sent; we send what upstream sends.
 */
const getIdentityPolicyAdvice: OperationHandler<'getIdentityPolicyAdvice'> = {
  access: 'admin',
  async handle({ deps, params: { id, serviceId } }) {
    const data = await deps.store.read(async (db) => {
      // Found by these ids, so they are the entities' ids.
      const who = await requireEntity(db, identity, id);
      const what = await requireEntity(db, service, serviceId);
      const advice = await analyzeServiceReachability(db, id, serviceId);
      const states = await edgeRouterLiveStates(
        db,
        advice.commonRouters.map((router) => router.id),
      );
      const commonRouters = advice.commonRouters.map((router) => ({
        ...entityRef(edgeRouter, router),
        isOnline: states.get(router.id)?.isOnline === true,
      }));
      return {
        identityId: id,
        identity: entityRef(identity, who),
        serviceId,
        service: entityRef(service, what),
        ...omitEmpty({
          isDialAllowed: advice.isDialAllowed,
          isBindAllowed: advice.isBindAllowed,
          identityRouterCount: advice.identityRouterCount,
          serviceRouterCount: advice.serviceRouterCount,
          commonRouters,
        }),
      };
    });
    return { status: 200, json: envelope(data) };
  },
};

export const identityPolicyAdviceOperations: OperationTable<'management'> = { getIdentityPolicyAdvice };
