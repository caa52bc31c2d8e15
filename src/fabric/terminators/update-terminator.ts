// UpdateTerminator (20209 → 20210) and HealthEvent (20214) from a hosting SDK through its router, as upstream
// v1.1.8 (controller/handler_edge_ctrl/update_terminator.go, health_event.go, common.go verifyTerminator and
// updateTerminator): the Bind session's checks, then the terminator must be this router's and an edge one.
import { formatTimestamp } from '../../lib/clock.js';
import type { Db, Store } from '../../store/store.js';
import { setTerminatorCostAndPrecedence, terminatorById, type TerminatorRow } from '../../store/queries/terminators.js';
import {
  TerminatorPrecedence,
  type HealthEventRequest,
  type UpdateTerminatorRequest,
} from '../messages/gen/edge_ctrl_pb.js';
import { checkSession, EdgeErrorCode, EdgeRequestError } from '../edge-requests.js';
import { EDGE_BINDING, precedenceName } from './create-terminator.js';

const MAX_COST = 65535;

/** Applies the update or throws upstream's refusal. Answers the terminator's service id. */
export async function updateEdgeTerminator(
  store: Store,
  routerId: string,
  request: UpdateTerminatorRequest,
  now: Date,
): Promise<string> {
  const at = formatTimestamp(now);
  return store.transaction(async (tx) => {
    const session = await checkSession(tx, {
      sessionToken: request.sessionToken,
      fingerprints: request.fingerprints,
      type: 'Bind',
      at,
    });
    const terminator = await verifyTerminator(tx, routerId, request.terminatorId, EDGE_BINDING, 'update.terminator');
    // Not upstream's: its check stops at the router, so any Bind session could move another host's terminator.
    if (terminator.host_id !== session.identityId)
      throw new EdgeRequestError('invalid terminator: hosted by another identity', EdgeErrorCode.invalidTerminator);
    await applyTerminatorUpdate(tx, terminator, request, at);
    return terminator.service_id;
  });
}

/**
 * common.go verifyTerminator: the terminator exists, is on the asking router and has the binding its request is for.
 * `label` names the request in the refusal, as upstream's handler labels do.
 */
export async function verifyTerminator(
  db: Db,
  routerId: string,
  terminatorId: string,
  binding: string,
  label: string,
): Promise<TerminatorRow> {
  const terminator = await terminatorById(db, terminatorId);
  if (!terminator) throw new EdgeRequestError('invalid terminator: not found', EdgeErrorCode.invalidTerminator);
  if (terminator.router_id !== routerId) {
    throw new EdgeRequestError(
      `${label} request for terminator ${terminator.id} on router ${terminator.router_id} came from router ${routerId}`,
      EdgeErrorCode.invalidTerminator,
    );
  }
  if (terminator.binding !== binding) {
    throw new EdgeRequestError(
      `can't operate on terminator ${terminator.id} with wrong binding, expected binding ${binding}, was ${terminator.binding} `,
      EdgeErrorCode.invalidTerminator,
    );
  }
  return terminator;
}

/** The cost and precedence a request changes (UpdateTerminatorRequest and UpdateTunnelTerminatorRequest). */
export interface TerminatorUpdate {
  updateCost: boolean;
  cost: number;
  updatePrecedence: boolean;
  precedence: TerminatorPrecedence;
}

/** common.go updateTerminator: the new cost and precedence checked, then written. */
export async function applyTerminatorUpdate(
  tx: Db,
  terminator: TerminatorRow,
  request: TerminatorUpdate,
  at: string,
): Promise<void> {
  let { cost, precedence } = terminator;
  if (request.updateCost) {
    if (request.cost > MAX_COST)
      throw new EdgeRequestError(
        `invalid cost ${request.cost}. cost must be between 0 and ${MAX_COST} inclusive`,
        EdgeErrorCode.invalidCost,
      );
    cost = request.cost;
  }
  if (request.updatePrecedence) {
    if (!Object.values(TerminatorPrecedence).includes(request.precedence)) {
      throw new EdgeRequestError(`invalid precedence: ${request.precedence}`, EdgeErrorCode.invalidPrecedence);
    }
    precedence = precedenceName(request.precedence);
  }
  await setTerminatorCostAndPrecedence(tx, terminator.id, cost, precedence, at);
}

/** A health check's result for a Bind session (upstream counts it per service); throws when the session fails its checks. */
export async function checkHealthEvent(store: Store, request: HealthEventRequest, now: Date): Promise<string> {
  const session = await store.read((db) =>
    checkSession(db, {
      sessionToken: request.sessionToken,
      fingerprints: request.fingerprints,
      type: 'Bind',
      at: formatTimestamp(now),
    }),
  );
  return session.serviceId;
}
