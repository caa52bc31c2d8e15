// One route attempt of a dial (upstream routesender.go): a Route to every router of the path at once and their
// RouteResults, a refusal named by its cause (upstream's CircuitFailureCause), and what a router's refusal says about
// the terminator (deleted when its router no longer has it, or dropped to the failed precedence).
import { formatTimestamp } from '../../lib/clock.js';
import {
  deleteTerminators,
  setTerminatorCostAndPrecedence,
  type TerminatorRow,
} from '../../store/queries/terminators.js';
import { RouteResultErrorCode } from '../messages/headers.js';
import { EdgeErrorCode } from '../edge-requests.js';
import { EDGE_BINDING } from '../terminators/create-terminator.js';
import type { RouterRoute } from './route-plan.js';
import { decodeRouteResult, type Outgoing, type PeerData, type RouteResult } from './circuit-messages.js';
import type { CircuitDeps } from './circuit-deps.js';
import type { SelectableTerminator } from './select-terminator.js';
import { recordTerminatorChanges } from '../../events/terminator-events.js';

export type DialTerminator = SelectableTerminator & { row: TerminatorRow };

/** A dial that failed for a reason with a name (upstream's CircuitFailureCause) and upstream's words. */
export class DialFailure extends Error {
  constructor(
    readonly reason: string,
    message: string,
    readonly code: number = EdgeErrorCode.internal,
  ) {
    super(message);
  }
}

/** One attempt of a dial: its circuit, the attempt's number, terminator and Routes, and the routers routed so far. */
export interface RouteAttempt {
  circuitId: string;
  attempt: number;
  terminator: DialTerminator;
  plan: RouterRoute[];
  routed: Set<string>;
}

export type RouteOutcome =
  { success: true; peerData: PeerData } | { success: false; failure: DialFailure; result?: RouteResult };

/**
 * The attempt's Routes sent to every router of the path at once (upstream routeSender.route): the first failure
 * ends the attempt; it succeeds when every router has answered success, with the terminator's router's peer data.
 * Each router that succeeded is added to `routed`, even after the attempt was decided.
 */
export function sendRoutes(deps: CircuitDeps, attempt: RouteAttempt): Promise<RouteOutcome> {
  const { plan, routed } = attempt;
  return new Promise((resolve) => {
    let pending = plan.length;
    let peerData: PeerData = new Map();
    plan.forEach(({ routerId, message }, index) => {
      void routeAt(deps, attempt, routerId, message).then((outcome) => {
        if (!outcome.success) return resolve(outcome);
        routed.add(routerId);
        if (index === plan.length - 1) peerData = outcome.peerData;
        if (--pending === 0) resolve({ success: true, peerData });
      });
    });
  });
}

/** One Route and its RouteResult (matched by the channel as a reply), within the route timeout. */
async function routeAt(
  deps: CircuitDeps,
  { terminator, attempt, circuitId }: RouteAttempt,
  routerId: string,
  route: Outgoing,
): Promise<RouteOutcome> {
  let reply;
  try {
    reply = await deps.messenger.request(routerId, route, deps.routeTimeoutMs);
  } catch {
    // Timed out, or no process holds the router.
    return {
      success: false,
      failure: new DialFailure('ROUTER_RESPONSE_TIMEOUT', `timeout creating routes for [s/${circuitId}]`),
    };
  }
  const result = decodeRouteResult(reply);
  if (!result)
    return {
      success: false,
      failure: new DialFailure(
        'ROUTER_ERR_GENERIC',
        `error creating route for [s/${circuitId}] on [r/${routerId}] (missing attempt header in route result)`,
      ),
    };
  if (result.success && result.attempt === attempt) return { success: true, peerData: result.peerData };
  const causes: Record<number, string> = {
    [RouteResultErrorCode.invalidTerminator]: 'ROUTER_ERR_INVALID_TERMINATOR',
    [RouteResultErrorCode.dialTimedOut]: 'ROUTER_ERR_DIAL_TIMED_OUT',
    [RouteResultErrorCode.connectionRefused]: 'ROUTER_ERR_CONN_REFUSED',
  };
  // As upstream's switch: an invalid terminator of another binding counts as misconfigured; code 2 has no case.
  let cause = causes[result.errorCode ?? RouteResultErrorCode.generic] ?? 'ROUTER_ERR_GENERIC';
  if (result.errorCode === RouteResultErrorCode.invalidTerminator && !isHostedBinding(terminator.row.binding))
    cause = 'ROUTER_ERR_MISCONFIGURED_TERMINATOR';
  return {
    success: false,
    failure: new DialFailure(cause, `error creating route for [s/${circuitId}] on [r/${routerId}] (${result.error})`),
    result,
  };
}

/** Terminators an SDK or tunneler hosts: one the router no longer knows is gone, not misconfigured. */
const isHostedBinding = (binding: string) => binding === EDGE_BINDING || binding === 'tunnel';

/**
 * What a router's refusal says about the terminator (routesender.go handleRouteSend): an invalid edge terminator (the router
 * no longer has it) is deleted; an invalid terminator of another binding drops to the failed precedence.
 */
export async function dropFailedTerminator(
  deps: CircuitDeps,
  result: RouteResult | undefined,
  terminator: DialTerminator,
): Promise<void> {
  if (result?.errorCode !== RouteResultErrorCode.invalidTerminator) return;
  if (isHostedBinding(terminator.row.binding)) {
    await deps.store.transaction(async (tx) =>
      recordTerminatorChanges(tx, 'deleted', await deleteTerminators(tx, [terminator.id]), undefined),
    );
    deps.strategies.forget(terminator.id);
    deps.metrics?.terminatorsRemoved(1);
    deps.logger.info(
      { terminatorId: terminator.id, routerId: terminator.routerId },
      'terminator deleted: its router no longer has it',
    );
  } else {
    await deps.store.transaction((tx) =>
      setTerminatorCostAndPrecedence(tx, terminator.id, terminator.cost, 'failed', formatTimestamp(deps.clock())),
    );
  }
}
