// What `/fabric/v1/circuits` and a session's route-path read (network-views.ts CircuitsView). With the store's records
// (circuit-records.ts) every process answers alike: the circuits of every live process, and an operator's removal of
// a circuit another process owns asked of that process through its inbox (ctrl/router-inbox.ts), as only the owner
// can end it (its routes, strategy and metrics are there). Without records (one process alone, as tests build it),
// this process's circuits.
import { fromBinary } from '@bufbuild/protobuf';
import { ApiError } from '../../errors/api-error.js';
import type { Message } from '../channel/message.js';
import { ContentType as CtrlType, UnrouteSchema } from '../messages/gen/ctrl_pb.js';
import type { InstanceMessenger } from '../ctrl/router-inbox.js';
import type { CircuitsView } from '../network-views.js';
import { unrouteMessage, type Outgoing } from './circuit-messages.js';
import type { CircuitRecords } from './circuit-records.js';
import { circuitSummary, type CircuitRegistry } from './circuit-registry.js';

/** How long an operator's removal waits for the owning process to answer. */
const REMOVAL_TIMEOUT_MS = 5000;

/** Ends one of this process's circuits as an operator asked (Circuits.remove); false when it has no such circuit. */
type RemoveHere = (circuitId: string, immediate: boolean) => boolean;

export function localCircuitsView(registry: CircuitRegistry, removeHere: RemoveHere): CircuitsView {
  return {
    list: () => Promise.resolve([...registry.all()].map(circuitSummary)),
    get: (id) => {
      const circuit = registry.get(id);
      return Promise.resolve(circuit && circuitSummary(circuit));
    },
    remove: (id, immediate) => Promise.resolve(removeHere(id, immediate)),
  };
}

export function sharedCircuitsView(
  records: CircuitRecords,
  removeHere: RemoveHere,
  instances: InstanceMessenger,
): CircuitsView {
  return {
    list: () => records.list(),
    get: async (id) => (await records.find(id))?.summary,
    async remove(id, immediate) {
      if (removeHere(id, immediate)) return true;
      const found = await records.find(id);
      // A row of this process without its circuit is one ending now.
      if (!found || found.instanceId === records.instanceId) return false;
      let reply: Message;
      try {
        reply = await instances.request(found.instanceId, unrouteMessage(id, immediate), REMOVAL_TIMEOUT_MS);
      } catch (error) {
        // A circuit this controller could not end: the owner lives (its row is shown) but did not answer.
        throw new ApiError('TIMEOUT', {
          code: 'UNHANDLED',
          message: `circuit ${id} is owned by controller instance ${found.instanceId}: ${error instanceof Error ? error.message : String(error)}`,
        });
      }
      return reply.body[0] === 1;
    },
  };
}

/**
 * The owner's side of a removal another process asked for: an Unroute for the circuit; the answer says whether it was,
 * once its record is gone (the asking operator's next list, on any process, no longer shows it).
 */
export function removalAsked(
  removeHere: RemoveHere,
  records: CircuitRecords,
): (message: Outgoing) => Promise<Outgoing> {
  return async (message) => {
    const { circuitId, now } = fromBinary(UnrouteSchema, message.body);
    const removed = removeHere(circuitId, now);
    await records.flush();
    return Promise.resolve({
      contentType: CtrlType.UnrouteType,
      headers: new Map(),
      body: Uint8Array.of(removed ? 1 : 0),
    });
  };
}
