// A process's circuits over their life (ziti controller/handler_ctrl fault.go, circuit_confirmation.go,
// route_result.go and network.RemoveCircuit in v1.1.8): created on a router's CreateCircuitV2, ended by a Fault
// from either side, by an idle check, by an operator, or by their router staying away; a router asking about a
// circuit no process knows (a restart forgot it) is told to unroute it. A circuit over a link that goes away is moved
// to another path, or ended when there is none (issue 24). Each is recorded in the store while it lives, so every
// process lists it (circuit-records.ts).
import type { Clock } from '../../lib/clock.js';
import type { Store } from '../../store/store.js';
import { ContentType as CtrlType, type CircuitConfirmation, type Fault } from '../messages/gen/ctrl_pb.js';
import type { CircuitsView } from '../network-views.js';
import {
  unrouteAt,
  type CreateCircuitRequest,
  type Outgoing,
  type PeerData,
  type RouteResult,
} from './circuit-messages.js';
import { CircuitRegistry, type Circuit } from './circuit-registry.js';
import { localMessenger } from '../ctrl/messenger.js';
import type { CircuitDeps, CircuitLinks, RouterMessenger } from './circuit-deps.js';
import type { CircuitEnd, FabricMetrics } from '../ctrl/fabric-metrics.js';
import type { ControlChannel, FabricLogger } from '../ctrl/router-channel.js';
import { createCircuit, dialCircuit, type DialRequest } from './create-circuit.js';
import { dialRefused } from './dial-refused.js';
import type { CheckedSession } from '../edge-requests.js';
import { Strategies } from './strategies.js';
import { shortestPath, type Path } from '../links/paths.js';
import type { RouteMessenger } from './reroute.js';
import type { RouterInbox } from '../ctrl/router-inbox.js';
import type { CircuitRecords } from './circuit-records.js';
import { moveOffLinks } from './circuit-moves.js';
import { circuitFault, confirmCircuits, lateRouteResult } from './circuit-reports.js';
import { localCircuitsView, removalAsked, sharedCircuitsView } from './circuit-view.js';

export type { CircuitLinks } from './circuit-deps.js';

export interface CircuitsOptions {
  store: Store;
  clock: Clock;
  logger: FabricLogger;
  routers: RouterMessenger;
  metrics?: FabricMetrics;
  routeTimeoutMs?: number;
  retries?: number;
  /** Circuits held at most; past it dials are refused. */
  capacity?: number;
  /** How long a disconnected router's circuits are kept for its return. */
  detachedGraceMs?: number;
  random?: () => number;
  /** The routers' links: paths over them, and circuits moved when one is lost. Without: one-router circuits only. */
  links?: CircuitLinks;
  /** Reaches routers held by other processes too (ctrl/router-inbox.ts); without, this process's channels only. */
  messenger?: RouteMessenger;
  /**
   * Several processes: the circuits recorded in the store, and the other instances reached through the inbox (an
   * operator's removal of a circuit another owns). Without, the view shows this process's circuits alone.
   */
  shared?: { records: CircuitRecords; inbox: Pick<RouterInbox, 'instances' | 'serveInstance'> };
}

const onlyItself =
  (sourceRouterId: string) =>
  (destRouterId: string): Path | undefined =>
    destRouterId === sourceRouterId ? { routerIds: [sourceRouterId], linkIds: [], cost: 0 } : undefined;

export class Circuits {
  readonly strategies: Strategies;
  readonly registry: CircuitRegistry;
  readonly deps: CircuitDeps;
  /** What `/fabric/v1/circuits` shows: every live process's circuits, with their paths. */
  readonly view: CircuitsView;
  readonly #detachedGraceMs: number;
  readonly #records: CircuitRecords | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: CircuitsOptions) {
    this.strategies = new Strategies(options.random);
    this.registry = new CircuitRegistry(options.capacity);
    this.#detachedGraceMs = options.detachedGraceMs ?? 60_000;
    const { links, shared } = options;
    this.#records = shared?.records;
    this.deps = {
      store: options.store,
      clock: options.clock,
      logger: options.logger,
      strategies: this.strategies,
      registry: this.registry,
      routers: options.routers,
      messenger:
        options.messenger ??
        localMessenger({
          get: (routerId) => {
            const channel = options.routers.channelOf(routerId);
            return channel && { channel };
          },
        }),
      pathsFrom: links
        ? async (sourceRouterId) => {
            const snapshot = await links.snapshot();
            return (destRouterId) => shortestPath(snapshot, sourceRouterId, destRouterId);
          }
        : (sourceRouterId) => Promise.resolve(onlyItself(sourceRouterId)),
      routeTimeoutMs: options.routeTimeoutMs ?? 10_000,
      retries: options.retries ?? 2,
      metrics: options.metrics,
      routing: new Set(),
      links,
      records: shared?.records,
      remove: (circuitId, now, end, detail) => this.remove(circuitId, now, end, detail) !== undefined,
      forget: (circuitId, end, detail) => this.#forget(circuitId, end, detail),
    };
    links?.onLinksLost((lost) => void moveOffLinks(this.deps, links, lost));
    const removeHere = (id: string, immediate: boolean) =>
      this.remove(id, immediate, 'removed by an operator') !== undefined;
    this.view = shared
      ? sharedCircuitsView(shared.records, removeHere, shared.inbox.instances)
      : localCircuitsView(this.registry, removeHere);
    // Others address this process while it owns circuits (it may hold none of its routers for their grace).
    const owning = () => this.registry.size > 0;
    if (shared) shared.inbox.serveInstance(CtrlType.UnrouteType, removalAsked(removeHere, shared.records), owning);
  }

  /** Once a minute: failures are credited back (upstream's CreditOverTime) and routers that stayed away lose their circuits. */
  start(intervalMs = 60_000): void {
    this.#timer ??= setInterval(() => this.tick(), intervalMs).unref();
  }

  /** Stops the timer; the circuits' records go (this process's circuits go with it, as upstream's). */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#records?.close();
  }

  tick(): void {
    this.strategies.creditOverTime();
    for (const circuit of this.registry.expire(this.deps.clock().getTime(), this.#detachedGraceMs))
      this.#ended(circuit, 'router gone', `its router did not reconnect within ${this.#detachedGraceMs} ms`);
  }

  /** A router's channel is (again) held here: its circuits stop waiting for it. */
  attached(routerId: string): void {
    this.registry.reattach(routerId);
  }

  /** CreateCircuitV2 (20218): the 20219 answer or an edge error. */
  create(routerId: string, request: CreateCircuitRequest): Promise<Outgoing> {
    return createCircuit(this.deps, routerId, request);
  }

  /** A dial already checked by its asker (the router's tunneler, tunnel/tunnel-circuits.ts); throws its refusal. */
  dial(
    routerId: string,
    request: DialRequest,
    checked: CheckedSession,
    started: number,
  ): Promise<{ circuit: Circuit; peerData: PeerData }> {
    return dialCircuit(this.deps, routerId, request, checked, started);
  }

  /** A dial's refusal or failure, counted, logged and answered as an edge error. */
  refused(routerId: string, checked: CheckedSession | undefined, caught: unknown): Outgoing {
    return dialRefused(this.deps, routerId, checked, caught);
  }

  /** The circuit subjects of a Fault (1004). */
  fault(routerId: string, channel: ControlChannel, fault: Fault): Promise<void> {
    return circuitFault(this.deps, routerId, channel, fault);
  }

  /** CircuitConfirmation (1034). */
  confirm(routerId: string, channel: ControlChannel, confirmation: CircuitConfirmation): Promise<void> {
    return confirmCircuits(this.deps, routerId, channel, confirmation);
  }

  /** A RouteResult (1022) nobody waits for. */
  lateRouteResult(routerId: string, channel: ControlChannel, result: RouteResult): void {
    lateRouteResult(this.deps, routerId, channel, result);
  }

  /** The router's channel closed: its circuits wait for it (the router keeps forwarding) for the grace. */
  detached(routerId: string): void {
    this.registry.detach(routerId, this.deps.clock().getTime());
  }

  /** Ends a circuit (network.RemoveCircuit): Unroute to every router of its path, forget it, tell its strategy. */
  remove(circuitId: string, now: boolean, end: CircuitEnd, detail?: string): Circuit | undefined {
    const circuit = this.registry.remove(circuitId);
    if (!circuit) return undefined;
    void unrouteAt(this.deps, circuit.path.routerIds, circuitId, now);
    this.#ended(circuit, end, detail);
    return circuit;
  }

  /** Forgets a circuit already unrouted (a re-route found no path left). */
  #forget(circuitId: string, end: CircuitEnd, detail: string): void {
    const circuit = this.registry.remove(circuitId);
    if (circuit) this.#ended(circuit, end, detail);
  }

  #ended(circuit: Circuit, end: CircuitEnd, detail?: string): void {
    this.#records?.ended(circuit.id);
    this.strategies.get(circuit.strategy)?.notify('circuitRemoved', circuit.terminatorId);
    this.deps.metrics?.circuitEnded(end);
    const durationMs = this.deps.clock().getTime() - circuit.createdAt;
    this.deps.logger.info(
      {
        circuitId: circuit.id,
        service: circuit.serviceName,
        serviceId: circuit.serviceId,
        clientId: circuit.clientId,
        hostId: circuit.hostId,
        routerId: circuit.routerId,
        durationMs,
        reason: detail ?? end,
      },
      'circuit ended',
    );
  }
}
