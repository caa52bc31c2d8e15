// `POST /sessions` (client): an identity asks to dial or bind a service. Checks run in upstream's order
// (ziti `model/session_manager.go` Create): reuse, visibility, permission, posture, a shared edge router.
import { ApiError } from '../../errors/api-error.js';
import { envelope } from '../../http/envelope.js';
import type { OperationHandler } from '../../http/operation.js';
import type { EntityDeps } from '../../app-deps.js';
import { rowToValues } from '../../crud/entity-store.js';
import { createdEntityIn } from '../../crud/entity-writes.js';
import { sessionCreateReads } from '../../store/queries/session-create.js';
import { writeAreas, type Db } from '../../store/store.js';
import { grantOf, type ServiceGrant, type ServiceViewer } from '../../policy/service-access.js';
import { commonEdgeRouters, SESSION_EDGE_ROUTERS, type CommonEdgeRouter } from '../../policy/session-edge-routers.js';
import { policiesWithChecks, type PolicyPostureChecks } from '../../posture/policy-checks.js';
import { postureViewFor } from '../../posture/posture-inputs.js';
import type { FailedServiceRequest } from '../../posture/reported-posture.js';
import { evaluateSessionPosture, failedServiceRequest, invalidPosture } from '../../posture/session-posture.js';
import { session } from './session.definition.js';
import type { Session } from './session.fields.js';
import { sessionDetail } from './session.rules.js';

/** What a create reads, in upstream's terms; read in one statement (store/queries/session-create.ts). */
interface CreateReads {
  /** The session the API session already holds for the service and the type (upstream's reuse). */
  reusable: Session | undefined;
  grant: ServiceGrant | undefined;
  /** The service policies linking the identity and the service, with their checks. */
  policies: PolicyPostureChecks[];
  edgeRouters: CommonEdgeRouter[];
}

async function readForCreate(db: Db, caller: ServiceViewer, serviceId: string, type: string): Promise<CreateReads> {
  const { identityId, apiSessionId } = caller;
  const found = await sessionCreateReads(db, identityId, apiSessionId, serviceId, type, SESSION_EDGE_ROUTERS);
  return {
    reusable: found.reusable && rowToValues(session, found.reusable),
    grant: grantOf(caller, found.service),
    policies: policiesWithChecks([serviceId], found.policies, found.checks).get(serviceId) ?? [],
    edgeRouters: commonEdgeRouters(found.routers),
  };
}

/** One create's outcome: the session made or reused, its service's name and the edge routers it may use. */
export interface SessionCreated {
  session: Session;
  serviceName: string;
  edgeRouters: CommonEdgeRouter[];
}

/**
 * The transaction a create runs in: in the API session's write area (reuse is decided and made in one turn), reading
 * the identity's (its posture, its API session): creates of one identity's several API sessions run at once, a
 * posture report or logout of the identity waits for them. The grants, policies and edge routers it reads change
 * only in strict writes. Bookkeeping: no kept answer reads sessions, so a create drops no instance's caches. Its
 * first act is the transaction's one read (createSessionIn), so BEGIN goes with it.
 */
export function sessionCreateWrite(apiSessionId: string, identityId: string) {
  return {
    bookkeeping: true,
    beginsAtFirstStatement: true,
    touches: [writeAreas.apiSession(apiSessionId)],
    reads: [writeAreas.identity(identityId)],
  };
}

/**
 * The checks and the insert of one create, in the caller's transaction (sessionCreateWrite): `requested` is the type
 * asked for (undefined: Dial, after the checks), `body` the rest of what was sent. A posture refusal is handed to
 * `refused` before it is thrown, to be recorded once the transaction has rolled back.
 */
export async function createSessionIn(
  tx: Db,
  deps: EntityDeps,
  caller: ServiceViewer,
  serviceId: string,
  requested: string | undefined,
  body: unknown,
  refused: (failure: FailedServiceRequest) => void,
): Promise<SessionCreated> {
  const { identityId, apiSessionId } = caller;
  const type = requested ?? 'Dial';
  const now = deps.clock();
  // One read of everything the checks below look at, in this transaction: the same answers as reading each
  // before its check, as nothing this turn does before the insert writes what they read.
  const { reusable, grant, policies, edgeRouters } = await readForCreate(tx, caller, serviceId, type);
  if (requested && reusable) return { session: reusable, serviceName: grant?.name ?? '', edgeRouters };
  if (!grant) throw ApiError.notFound('service', serviceId);
  if ((type === 'Dial' && !grant.canDial) || (type === 'Bind' && !grant.canBind))
    throw ApiError.invalidField('ServiceId', 'service not found', serviceId);

  const checks = policies.filter((policy) => policy.policyType === type).flatMap((policy) => policy.checks);
  const view = await postureViewFor(tx, deps.posture, identityId, apiSessionId, now, checks);
  const posture = evaluateSessionPosture(policies, type, view);
  if (!posture.passed) {
    const request = { apiSessionId, serviceId, serviceName: grant.name, sessionType: type };
    refused(failedServiceRequest(posture, view, request));
    throw invalidPosture(posture);
  }
  if (edgeRouters.length === 0) throw new ApiError('NO_EDGE_ROUTERS_AVAILABLE');
  // `Invalid` is in the contract's enum and passes the checks above; upstream's store refuses it last.
  if (type !== 'Dial' && type !== 'Bind') throw ApiError.invalidField('type', 'invalid session type', type);

  // With the type left out, upstream's early lookup missed; within this transaction nothing else can have made one.
  if (reusable) return { session: reusable, serviceName: grant.name, edgeRouters };
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
  const created = await createdEntityIn(tx, deps, session, body, extra);
  deps.posture.recheckAt(identityId, posture.failsAt);
  return { session: created, serviceName: grant.name, edgeRouters };
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

    // A refused request is kept for admins, written after the refusing transaction has rolled back.
    let refused: FailedServiceRequest | undefined;
    const creating = deps.store.transaction(
      async (tx) => {
        const made = await createSessionIn(tx, deps, caller, serviceId, requested, body, (failure) => {
          refused = failure;
        });
        return sessionDetail(made.session, made.serviceName, made.edgeRouters, context.caller);
      },
      sessionCreateWrite(apiSessionId, identityId),
    );
    const detail = await creating.catch(async (error: unknown) => {
      if (refused) await deps.posture.recordFailedServiceRequest(identityId, refused);
      throw error;
    });
    return { status: 201, json: envelope(detail) };
  },
};
