// `POST /sessions` (client): an identity asks to dial or bind a service. Checks run in upstream's order
// (ziti `model/session_manager.go` Create): reuse, visibility, permission, posture, a shared edge router.
import { ApiError } from '../../errors/api-error.js';
import { envelope } from '../../http/envelope.js';
import type { OperationHandler } from '../../http/operation.js';
import { findEntity } from '../../crud/entity-store.js';
import { createEntityIn, requireEntity } from '../../crud/entity-writes.js';
import { reusableSessionId } from '../../store/queries/sessions.js';
import { writeAreas, type Db } from '../../store/store.js';
import { serviceGrant } from '../../policy/service-access.js';
import { sharedEdgeRouters } from '../../policy/session-edge-routers.js';
import { policyPostureChecks } from '../../posture/policy-checks.js';
import { postureViewFor } from '../../posture/posture-inputs.js';
import type { FailedServiceRequest } from '../../posture/reported-posture.js';
import { evaluateSessionPosture, failedServiceRequest, invalidPosture } from '../../posture/session-posture.js';
import { session } from './session.definition.js';
import type { Session } from './session.fields.js';
import { sessionDetail } from './session.rules.js';

/** The session this API session already holds for the service and type, if any (upstream's reuse). */
async function findReusable(
  db: Db,
  apiSessionId: string,
  serviceId: string,
  type: string,
): Promise<Session | undefined> {
  const id = await reusableSessionId(db, apiSessionId, serviceId, type);
  return id === undefined ? undefined : findEntity(db, session, id);
}

export const createSession: OperationHandler<'createSession', 'client'> = {
  access: 'authenticated',
  async handle(context) {
    const { deps, body } = context;
    const caller = context.caller.session;
    const { identityId, apiSessionId } = caller;
    const serviceId = body.serviceId ?? '';
    // An omitted or empty type is Dial, but only after the checks: upstream's early reuse lookup misses then.
    const requested = body.type || undefined;
    const type = requested ?? 'Dial';
    const now = deps.clock();

    // A refused request is kept for admins, written after the refusing transaction has rolled back.
    let refused: FailedServiceRequest | undefined;
    // In the API session's write area (reuse is decided and made in one turn), reading the identity's (its posture,
    // its API session): creates of one identity's several API sessions run at once, a posture report or logout of
    // the identity waits for them. The grants, policies and edge routers it reads change only in strict writes.
    // Bookkeeping: no kept answer reads sessions, so a create drops no instance's caches.
    const creating = deps.store.transaction(
      async (tx) => {
        const reusable = requested && (await findReusable(tx, apiSessionId, serviceId, type));
        const grant = await serviceGrant(tx, caller, serviceId);
        if (reusable)
          return sessionDetail(
            reusable,
            grant?.name ?? '',
            await sharedEdgeRouters(tx, identityId, serviceId),
            context.caller,
          );
        if (!grant) throw ApiError.notFound('service', serviceId);
        if ((type === 'Dial' && !grant.canDial) || (type === 'Bind' && !grant.canBind))
          throw ApiError.invalidField('ServiceId', 'service not found', serviceId);

        const policies = (await policyPostureChecks(tx, identityId, [serviceId])).get(serviceId) ?? [];
        const checks = policies.filter((policy) => policy.policyType === type).flatMap((policy) => policy.checks);
        const view = await postureViewFor(tx, deps.posture, identityId, apiSessionId, now, checks);
        const posture = evaluateSessionPosture(policies, type, view);
        if (!posture.passed) {
          const request = { apiSessionId, serviceId, serviceName: grant.name, sessionType: type };
          refused = failedServiceRequest(posture, view, request);
          throw invalidPosture(posture);
        }
        const edgeRouters = await sharedEdgeRouters(tx, identityId, serviceId);
        if (edgeRouters.length === 0) throw new ApiError('NO_EDGE_ROUTERS_AVAILABLE');
        // `Invalid` is in the contract's enum and passes the checks above; upstream's store refuses it last.
        if (type !== 'Dial' && type !== 'Bind') throw ApiError.invalidField('type', 'invalid session type', type);

        // With the type left out, the lookup above was skipped; within this transaction nothing else can have made one.
        const again = !requested && (await findReusable(tx, apiSessionId, serviceId, type));
        if (again) return sessionDetail(again, grant.name, edgeRouters, context.caller);
        // Through the entity's rules, with the values no body can set; the response shows the session as stored.
        const extra = {
          id: deps.ids.cuid(now),
          serviceId,
          token: deps.ids.token(),
          apiSessionId,
          type,
          identityId,
          servicePolicies: posture.passingPolicyIds,
        };
        const created = await requireEntity(tx, session, await createEntityIn(tx, deps, session, body, extra));
        deps.posture.recheckAt(identityId, posture.failsAt);
        return sessionDetail(created, grant.name, edgeRouters, context.caller);
      },
      { bookkeeping: true, touches: [writeAreas.apiSession(apiSessionId)], reads: [writeAreas.identity(identityId)] },
    );
    const detail = await creating.catch(async (error: unknown) => {
      if (refused) await deps.posture.recordFailedServiceRequest(identityId, refused);
      throw error;
    });
    return { status: 201, json: envelope(detail) };
  },
};
