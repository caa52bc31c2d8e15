// A router's fabric CircuitRequest (ctrl 1000 → CircuitSuccess 1001 or CircuitFailed 1016) as upstream v1.1.8 answers
// it (controller/handler_ctrl/circuit_request.go, network.CreateCircuit): what a router's `proxy`, `proxy_udp` and
// `transport` xgress listeners send for each connection they accept (router/xgress/request.go GetCircuit). There is no
// edge session and no policy to check: upstream trusts an enrolled router with the service its listener names. The
// service is named by id or by name (`instance@serviceId` addresses a terminator instance); then the same terminator
// selection, strategies, routes, retries and events as an edge dial (create-circuit.ts).
import type { CircuitRequest } from '../messages/gen/ctrl_pb.js';
import { edgeServiceById, edgeServiceByName, type EdgeService } from '../../store/queries/edge-sessions.js';
import { isRecordableClientId } from '../../store/queries/fabric-circuits.js';
import type { CircuitDeps } from './circuit-deps.js';
import { circuitFailedMessage, circuitSuccessMessage, type Outgoing, type PeerData } from './circuit-messages.js';
import { dialCircuit, dialFailure, newCircuitId } from './create-circuit.js';
import { dialRefusal } from './dial-refused.js';
import { DialFailure } from './route-attempt.js';

/** The service a request names, as upstream finds it: the instance it addresses, the id it looked up, the service. */
interface NamedService {
  instanceId: string;
  serviceId: string;
  service: EdgeService | undefined;
}

/**
 * circuit_request.go reads the name as an id, then as a name (GetIdForName); whatever it holds then is split at its
 * first `@` into instance and service id (network.go parseInstanceIdAndService), and that id read again.
 */
async function namedService(deps: CircuitDeps, named: string): Promise<NamedService> {
  return deps.store.read(async (db) => {
    const found = (await edgeServiceById(db, named)) ?? (await edgeServiceByName(db, named));
    if (found) return { instanceId: '', serviceId: found.id, service: found };
    const at = named.indexOf('@');
    if (at < 0) return { instanceId: '', serviceId: named, service: undefined };
    const serviceId = named.slice(at + 1);
    return { instanceId: named.slice(0, at), serviceId, service: await edgeServiceById(db, serviceId) };
  });
}

/** Answers the router's request: CircuitSuccess with the circuit, or CircuitFailed with upstream's words. */
export async function requestCircuit(
  deps: CircuitDeps,
  sourceRouterId: string,
  request: CircuitRequest,
): Promise<Outgoing> {
  const started = deps.clock().getTime();
  const peerData: PeerData = new Map(Object.entries(request.peerData).map(([key, value]) => [Number(key), value]));
  let service: EdgeService | undefined;
  try {
    // The ingress id is the circuit's client, recorded for every process to list; a transport listener takes it from
    // its TCP peer. One the store cannot record is refused, on both stores alike (upstream's bolt stores anything).
    if (!isRecordableClientId(request.ingressId))
      throw new DialFailure('INVALID_REQUEST', 'invalid ingress id: it holds a NUL character (U+0000)');
    const named = await namedService(deps, request.service);
    service = named.service;
    const asked = { request: { terminatorInstanceId: named.instanceId, peerData }, ingressId: request.ingressId };
    if (!service) {
      // Upstream gives the dial a circuit id before it finds the service: its failure is an event like any other.
      const failed = { serviceId: named.serviceId, serviceTag: request.service };
      deps.events?.circuitFailed(dialFailure({ ...asked, started }, newCircuitId(), failed, 'INVALID_SERVICE'));
      throw new DialFailure('INVALID_SERVICE', `service with id ${named.serviceId} not found`);
    }
    const dial = { sourceRouterId, ...asked, service, started };
    const { circuit, peerData: answered } = await dialCircuit(deps, dial);
    return circuitSuccessMessage(circuit.id, circuit.ingressId, answered);
  } catch (caught) {
    const error = dialRefusal(deps, sourceRouterId, { service, clientId: request.ingressId }, caught);
    return circuitFailedMessage(error.message);
  }
}
