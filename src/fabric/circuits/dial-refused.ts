// A dial refused or failed (CreateCircuitV2, a tunneler's CreateCircuitForService): counted, logged and answered as
// the edge error upstream sends (handler_edge_ctrl common.go returnError).
import { EdgeRequestError, type CheckedSession } from '../edge-requests.js';
import { edgeErrorMessage, type Outgoing } from './circuit-messages.js';
import type { CircuitDeps } from './circuit-deps.js';
import { DialFailure } from './route-attempt.js';

/**
 * A refused or failed dial, counted, logged and answered as an edge error (20002). Anything unforeseen (the store
 * failing) is still answered, as upstream's internal error, so the dialing side is told.
 */
export function dialRefused(
  deps: CircuitDeps,
  sourceRouterId: string,
  checked: CheckedSession | undefined,
  caught: unknown,
): Outgoing {
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
      service: checked?.service.name,
      serviceId: checked?.service.id,
      clientId: checked?.session.identityId,
      cause,
      reason: error.message,
    },
    'circuit not created: the dial was refused',
  );
  return edgeErrorMessage(error.message, error.code);
}
