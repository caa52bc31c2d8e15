// CreateCircuitV2 (20218 → 20219) as upstream v1.1.8 answers it (controller/handler_edge_ctrl/create_circuit.go,
// common.go createCircuit, network/network.go CreateCircuit, routesender.go): check the Dial session, pick a
// terminator by the service's strategy and the cost of the path to its router, send a Route to every router of the
// path and wait for their RouteResults, retry a failed attempt up to `retries` attempts in all, then answer with the
// circuit or upstream's error.
import { formatTimestamp } from '../../lib/clock.js';
import { newShortId } from '../../lib/ids.js';
import { terminatorsOfService, type TerminatorRow } from '../../store/queries/terminators.js';
import { PathHeader } from '../messages/headers.js';
import { checkSessionRequest, EdgeErrorCode, EdgeRequestError, type CheckedSession } from '../edge-requests.js';
import type { EdgeService, EdgeSession } from '../../store/queries/edge-sessions.js';
import { decodePeerData } from '../terminators/create-terminator.js';
import { routePlan } from './route-plan.js';
import { oneRouterPaths } from '../links/paths.js';
import {
  createCircuitResponse,
  unrouteAt,
  type CreateCircuitRequest,
  type Outgoing,
  type PeerData,
} from './circuit-messages.js';
import type { Circuit } from './circuit-registry.js';
import type { CircuitDeps } from './circuit-deps.js';
import type { CircuitFailure } from '../fabric-events.js';
import { SelectFailure, selectTerminator, type SelectedTerminator } from './select-terminator.js';
import { DialFailure, dropFailedTerminator, sendRoutes, type DialTerminator } from './route-attempt.js';
import { dialRefused } from './dial-refused.js';

/** Peer-data key of an SDK's public key (sdk-golang edge.PublicKeyHeader). */
export const PUBLIC_KEY_HEADER = 1003;

const toCandidate = (row: TerminatorRow): DialTerminator => ({
  id: row.id,
  cost: row.cost,
  precedence: row.precedence,
  routerId: row.router_id,
  instanceId: row.instance_id ?? '',
  row,
});

/** upstream's idgen NextAlphaNumericPrefixedId: a shortid that does not start with '-' or '.'. */
export function newCircuitId(): string {
  for (;;) {
    const id = newShortId();
    if (id[0] !== '-' && id[0] !== '.') return id;
  }
}

/** What a dial needs beyond its checked session: an addressed terminator, and the initiator's peer data. */
export type DialInput = Pick<CreateCircuitRequest, 'terminatorInstanceId' | 'peerData'>;

/** Answers the router's request: the 20219 response or an edge error (20002). */
export async function createCircuit(
  deps: CircuitDeps,
  sourceRouterId: string,
  request: CreateCircuitRequest,
): Promise<Outgoing> {
  const started = deps.clock().getTime();
  let checked: CheckedSession | undefined;
  try {
    checked = await deps.store.read((db) =>
      checkSessionRequest(db, {
        routerId: sourceRouterId,
        sessionToken: request.sessionToken,
        fingerprints: request.fingerprints,
        type: 'Dial',
        at: formatTimestamp(deps.clock()),
      }),
    );
    const client = edgeClient(checked);
    const { circuit, peerData } = await dialCircuit(deps, { sourceRouterId, request, ...client, started });
    return createCircuitResponse({ circuitId: circuit.id, address: circuit.ingressId, peerData, tags: circuit.tags });
  } catch (caught) {
    return dialRefused(deps, sourceRouterId, checked, caught);
  }
}

/**
 * A dial made into a circuit (common.go createCircuit, network.CreateCircuit): for an edge dial, the initiator's
 * public key when the service requires encryption; then the route. Throws EdgeRequestError or DialFailure with
 * upstream's words.
 */
export async function dialCircuit(
  deps: CircuitDeps,
  dial: DialRequest,
): Promise<{ circuit: Circuit; peerData: PeerData }> {
  if (dial.session && dial.service.encryptionRequired && !dial.request.peerData.has(PUBLIC_KEY_HEADER)) {
    throw new EdgeRequestError(
      'encryption required on service, initiator did not send public header',
      EdgeErrorCode.encryptionDataMissing,
    );
  }
  return routeCircuit(deps, dial);
}

/**
 * Who a circuit is for (upstream's CreateCircuitParams: the client token and GetCircuitTags), the one place an edge
 * dial and a router's fabric CircuitRequest differ. An edge dial has its identity's Dial session: the session's id is
 * the circuit's client, the identity is tagged `clientId`, and the service's end-to-end encryption is demanded
 * (handler_edge_ctrl common.go). A fabric request (handler_ctrl circuit_request.go) has no session: its ingress id is
 * the client, the tags name the service and host only, and encryption is the edge's business, not checked.
 */
export interface DialClient {
  service: EdgeService;
  /** The edge Dial session (CreateCircuitV2, a tunneler's dials); none for a fabric CircuitRequest. */
  session?: EdgeSession;
  /** The fabric request's ingress id (upstream's client token when there is no session). */
  ingressId?: string;
}

/** An edge dial's client: the session it was checked with. */
export function edgeClient({ session, service }: CheckedSession): DialClient {
  return { session, service };
}

/** A dial's inputs: the router that asked, its request, who it is for and the service, when it began. */
export interface DialRequest extends DialClient {
  sourceRouterId: string;
  request: DialInput;
  started: number;
}

/** The circuit's client token: the Dial session's id, or the fabric request's ingress id. */
const clientIdOf = ({ session, ingressId }: Omit<DialClient, 'service'>) => session?.id ?? ingressId ?? '';

/** GetCircuitTags: the service as asked, the dialling identity (edge dials only), the host once a terminator is chosen. */
function tagsOf({ session }: Omit<DialClient, 'service'>, serviceTag: string, hostId?: string): Record<string, string> {
  return {
    serviceId: serviceTag,
    ...(session ? { clientId: session.identityId } : {}),
    ...(hostId === undefined ? {} : { hostId }),
  };
}

/** The service as the dial named it: `instance@service` for an addressed dial, as upstream's circuit params carry it. */
const serviceTagOf = ({ request, service }: DialRequest) =>
  request.terminatorInstanceId ? `${request.terminatorInstanceId}@${service.id}` : service.id;

/**
 * A dial under way: its circuit's id, and the routers that took a route of it in some attempt (upstream's
 * allCleanups): unrouted when the dial fails, and those off the final path when it succeeds.
 */
interface Dial extends DialRequest {
  circuitId: string;
  routed: Set<string>;
}

async function routeCircuit(
  deps: CircuitDeps,
  request: DialRequest,
): Promise<{ circuit: Circuit; peerData: PeerData }> {
  if (deps.registry.isFull)
    throw new DialFailure('CAPACITY', `this controller holds its maximum of ${deps.registry.capacity} circuits`);
  const dial: Dial = { ...request, circuitId: newCircuitId(), routed: new Set() };
  deps.routing.add(dial.circuitId);
  try {
    return await attemptEach(deps, dial);
  } catch (error) {
    // A failed dial is an event (upstream CircuitFailedEvent; the attempt's terminator and path are not kept)
    if (error instanceof DialFailure) deps.events?.circuitFailed(failureOf(dial, error));
    throw error;
  } finally {
    void unrouteAt(deps, dial.routed, dial.circuitId, true);
    deps.routing.delete(dial.circuitId);
  }
}

/** This attempt's terminator, by the service's strategy over the terminators as stored now and the paths to them. */
async function select(
  deps: CircuitDeps,
  { sourceRouterId, request, service }: Dial,
): Promise<SelectedTerminator<DialTerminator>> {
  const rows = await deps.store.read((db) => terminatorsOfService(db, service.id));
  // Every terminator on the dialling router (a one-router network, or bench:circuits' dials): the paths need no look at
  // the links and routers' costs, one store read fewer per dial.
  const pathTo = rows.every((row) => row.router_id === sourceRouterId)
    ? oneRouterPaths(sourceRouterId)
    : await deps.pathsFrom(sourceRouterId);
  try {
    return selectTerminator(deps.strategies, {
      serviceId: service.id,
      terminatorStrategy: service.terminatorStrategy,
      instanceId: request.terminatorInstanceId,
      terminators: rows.map(toCandidate),
      sourceRouterId,
      isRouterOnline: (routerId) => deps.routers.isOnline(routerId),
      pathTo,
      dialPeerData: request.peerData,
    });
  } catch (error) {
    if (error instanceof SelectFailure) throw new DialFailure(error.reason, error.message);
    throw error;
  }
}

async function attemptEach(deps: CircuitDeps, dial: Dial): Promise<{ circuit: Circuit; peerData: PeerData }> {
  const { request, session, service, started, circuitId, routed } = dial;
  const deadline = started + deps.routeTimeoutMs;
  const serviceTag = serviceTagOf(dial);
  let lastFailure: DialFailure | undefined;
  for (let attempt = 0; attempt < deps.retries; attempt++) {
    const selected = await select(deps, dial);
    const { terminator, strategy, path } = selected;
    const tags = tagsOf(dial, serviceTag, terminator.row.host_id ?? '');
    const ingressId = newShortId();
    const egressId = newShortId();
    const target = { binding: terminator.row.binding, address: terminator.row.address };
    const plan = routePlan({
      circuitId,
      attempt,
      ingressId,
      egressId,
      path,
      terminator: target,
      dialPeerData: request.peerData,
      tags,
      remainingMs: deadline - deps.clock().getTime(),
    });
    const outcome = await sendRoutes(deps, { circuitId, attempt, terminator, plan, routed });
    if (outcome.success) {
      // The routers of the final path keep their routes; the finally above unroutes those of earlier attempts only.
      for (const routerId of path.routerIds) routed.delete(routerId);
      strategy.notify('dialSucceeded', terminator.id);
      const peerData = new Map(outcome.peerData);
      for (const key of Object.values(PathHeader)) peerData.delete(key);
      for (const [key, value] of selected.peerData) peerData.set(key, value);
      const now = deps.clock().getTime();
      const circuit: Circuit = {
        id: circuitId,
        serviceId: service.id,
        serviceName: service.name,
        clientId: clientIdOf(dial),
        hostId: terminator.row.host_id ?? '',
        sessionId: session?.id,
        terminatorId: terminator.id,
        strategy: strategy.name,
        routerId: terminator.routerId,
        path: { routerIds: path.routerIds, linkIds: path.linkIds },
        terminator: target,
        ingressId,
        egressId,
        tags,
        createdAt: now,
        updatedAt: now,
      };
      const answered = new Map([...decodePeerData(terminator.row.peer_data), ...peerData]);
      const encryptionRequired = session !== undefined && service.encryptionRequired;
      await keepCircuit(deps, circuit, { answered, encryptionRequired, routed });
      deps.metrics?.circuitCreated((circuit.createdAt - started) / 1000);
      deps.events?.circuitCreated(circuit, started, path.cost + terminator.cost);
      deps.logger.info(
        {
          circuitId,
          service: service.name,
          serviceId: service.id,
          clientId: circuit.clientId,
          hostId: circuit.hostId,
          routerId: circuit.routerId,
          path: path.routerIds,
          terminatorId: terminator.id,
          attempts: attempt + 1,
          setupMs: circuit.createdAt - started,
        },
        'circuit created',
      );
      return { circuit, peerData: answered };
    }
    strategy.notify('dialFailed', terminator.id);
    lastFailure = outcome.failure;
    deps.logger.warn(
      {
        circuitId,
        service: service.name,
        routerId: terminator.routerId,
        path: path.routerIds,
        terminatorId: terminator.id,
        attempt: attempt + 1,
        cause: outcome.failure.reason,
        reason: outcome.failure.message,
      },
      'route attempt for circuit failed',
    );
    await dropFailedTerminator(deps, outcome.result, terminator);
  }
  if (!lastFailure) throw new Error('circuit creation is configured with no attempts');
  throw new DialFailure(
    lastFailure.reason,
    `exceeded maximum [${deps.retries}] retries creating circuit [c/${circuitId}]: ${lastFailure.message}`,
  );
}

/**
 * A routed circuit kept: held (within the capacity: past it, refused and unrouted with the dial) and recorded in the
 * store; ended at once when its service requires encryption and the hosting side sent no public key.
 */
async function keepCircuit(
  deps: CircuitDeps,
  circuit: Circuit,
  { answered, encryptionRequired, routed }: { answered: PeerData; encryptionRequired: boolean; routed: Set<string> },
): Promise<void> {
  if (!deps.registry.add(circuit)) {
    for (const routerId of circuit.path.routerIds) routed.add(routerId);
    throw new DialFailure('CAPACITY', `this controller holds its maximum of ${deps.registry.capacity} circuits`);
  }
  await deps.records?.put(circuit);
  if (encryptionRequired && !answered.has(PUBLIC_KEY_HEADER)) {
    deps.ends.remove(circuit.id, true, 'no public key', 'encryption required and the hosting side sent no public key');
    throw new EdgeRequestError(
      'encryption required on service, terminator did not send public header',
      EdgeErrorCode.encryptionDataMissing,
    );
  }
}

/** What a failed dial's event tells (upstream CircuitFailedEvent). */
function failureOf(dial: Dial, error: DialFailure): CircuitFailure {
  return dialFailure(
    dial,
    dial.circuitId,
    { serviceId: dial.service.id, serviceTag: serviceTagOf(dial) },
    error.reason,
  );
}

/**
 * A failed dial's event (CircuitFailedEvent) before a terminator is chosen: the circuit id it was given, the service
 * (as found, or as asked when it was not) and its tag (`instance@service` for an addressed dial), the cause.
 */
export function dialFailure(
  dial: Omit<DialClient, 'service'> & Pick<DialRequest, 'request' | 'started'>,
  circuitId: string,
  { serviceId, serviceTag }: { serviceId: string; serviceTag: string },
  cause: string,
): CircuitFailure {
  return {
    circuitId,
    clientId: clientIdOf(dial),
    serviceId,
    instanceId: dial.request.terminatorInstanceId,
    terminatorId: '',
    path: undefined,
    cost: undefined,
    cause,
    startedAt: dial.started,
    tags: tagsOf(dial, serviceTag),
  };
}
