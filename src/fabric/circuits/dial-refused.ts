// A dial refused or failed (CreateCircuitV2, a tunneler's CreateCircuitForService, a router's fabric CircuitRequest):
// counted, logged and answered as upstream answers each (handler_edge_ctrl common.go returnError: an edge error;
// handler_ctrl circuit_request.go: CircuitFailed).
import { EdgeRequestError, type CheckedSession } from '../edge-requests.js';
import { edgeErrorMessage, type Outgoing } from './circuit-messages.js';
import type { CircuitDeps } from './circuit-deps.js';
import { DialFailure } from './route-attempt.js';

/** What is known of a refused dial for its log line: the service once found, the dialling identity if any. */
export interface RefusedDial {
  service?: { id: string; name: string };
  clientId?: string;
}

/**
 * A refused or failed dial, counted and logged, as the error to answer with. Anything unforeseen (the store failing)
 * becomes upstream's internal error, so the dialing side is still told.
 */
export function dialRefusal(
  deps: CircuitDeps,
  sourceRouterId: string,
  dial: RefusedDial,
  caught: unknown,
): EdgeRequestError | DialFailure {
  const error =
    caught instanceof EdgeRequestError || caught instanceof DialFailure
      ? caught
      : new DialFailure('INTERNAL', caught instanceof Error ? caught.message : String(caught));
  if (error instanceof DialFailure && error.reason === 'INTERNAL')
    deps.logger.error({ routerId: sourceRouterId, err: caught }, 'circuit not created: internal error');
  const cause = error instanceof DialFailure ? error.reason : 'SESSION_REFUSED';
  deps.metrics?.circuitFailed(cause);
  deps.logger.warn(
    {
      routerId: sourceRouterId,
      service: dial.service?.name,
      serviceId: dial.service?.id,
      clientId: dial.clientId,
      cause,
      reason: error.message,
    },
    'circuit not created: the dial was refused',
  );
  return error;
}

/** An edge dial's refusal or failure, answered as an edge error (20002). */
export function dialRefused(
  deps: CircuitDeps,
  sourceRouterId: string,
  checked: CheckedSession | undefined,
  caught: unknown,
): Outgoing {
  const dial = checked ? { service: checked.service, clientId: checked.session.identityId } : {};
  const error = dialRefusal(deps, sourceRouterId, dial, caught);
  return edgeErrorMessage(error.message, error.code);
}
