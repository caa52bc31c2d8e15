// A process's circuits over their life (ziti controller/handler_ctrl fault.go, circuit_confirmation.go,
// route_result.go and network.RemoveCircuit in v1.1.8): created on a router's CreateCircuitV2, ended by a Fault
// from either side, by an idle check, by an operator, or by their router staying away; a router asking about a
// circuit no process knows (a restart forgot it) is told to unroute it. Routers' fabric listeners ask for circuits
// too (CircuitRequest, circuit-request.ts). A circuit over a link that goes away is moved
// to another path, or ended when there is none (issue 24). Each is recorded in the store while it lives, so every
// process lists it (circuit-records.ts).
import type { Clock } from '../../lib/clock.js';
import type { Store } from '../../store/store.js';
import {
  ContentType as CtrlType,
  type CircuitConfirmation,
  type CircuitRequest,
  type Fault,
} from '../messages/gen/ctrl_pb.js';
import type { CircuitsView } from '../network-views.js';
import { type CreateCircuitRequest, type Outgoing, type PeerData, type RouteResult } from './circuit-messages.js';
import { CircuitRegistry, type Circuit } from './circuit-registry.js';
import { localMessenger } from '../ctrl/messenger.js';
import type { CircuitDeps, CircuitLinks, PathUpdatedListener, RouterMessenger } from './circuit-deps.js';
import type { CircuitEnd, FabricMetrics } from '../ctrl/fabric-metrics.js';
import type { ControlChannel, FabricLogger } from '../ctrl/router-channel.js';
import { createCircuit, dialCircuit, type DialInput } from './create-circuit.js';
import { dialRefused } from './dial-refused.js';
import { requestCircuit } from './circuit-request.js';
import type { CheckedSession } from '../edge-requests.js';
import { Strategies } from './strategies.js';
import { oneRouterPaths, shortestPath } from '../links/paths.js';
import type { RouteMessenger } from './reroute.js';
import type { RouterInbox } from '../ctrl/router-inbox.js';
import type { CircuitRecords } from './circuit-records.js';
import { moveOffLinks, smartRerouteCycle } from './circuit-moves.js';
import { DEFAULT_SMART_REROUTE, type SmartRerouteOptions } from './smart-reroute.js';
import { CircuitEnds } from './circuit-ends.js';
import type { FabricEvents } from '../fabric-events.js';
import { circuitFault, confirmCircuits, lateRouteResult } from './circuit-reports.js';
import { localCircuitsView, removalAsked, sharedCircuitsView } from './circuit-view.js';

export type { CircuitLinks } from './circuit-deps.js';

export interface CircuitsOptions {
  store: Store;
  clock: Clock;
  logger: FabricLogger;
  routers: RouterMessenger;
  metrics?: FabricMetrics;
  events?: FabricEvents;
  routeTimeoutMs?: number;
  retries?: number;
  /** Circuits held at most; past it dials are refused. */
  capacity?: number;
  /** How long a disconnected router's circuits are kept for its return. */
  detachedGraceMs?: number;
  random?: () => number;
  /** The routers' links: paths over them, and circuits moved when one is lost. Without: one-router circuits only. */
  links?: CircuitLinks;
  /** Smart rerouting's cycle and bounds (settings `network.*`); upstream's defaults without. */
  smart?: SmartRerouteOptions;
  /** Reaches routers held by other processes too (ctrl/router-inbox.ts); without, this process's channels only. */
  messenger?: RouteMessenger;
  /**
   * Several processes: the circuits recorded in the store, and the other instances reached through the inbox (an
   * operator's removal of a circuit another owns). Without, the view shows this process's circuits alone.
   */
  shared?: { records: CircuitRecords; inbox: Pick<RouterInbox, 'instances' | 'serveInstance'> };
}

export class Circuits {
  readonly strategies: Strategies;
  readonly registry: CircuitRegistry;
  readonly deps: CircuitDeps;
  readonly ends: CircuitEnds;
  /** What `/fabric/v1/circuits` shows: every live process's circuits, with their paths. */
  readonly view: CircuitsView;
  readonly #detachedGraceMs: number;
  readonly #records: CircuitRecords | undefined;
  readonly #smart: SmartRerouteOptions;
  #timer: NodeJS.Timeout | undefined;
  #cycleTimer: NodeJS.Timeout | undefined;
  /** The network cycle under way (upstream runs one at a time). */
  #cycle: Promise<void> | undefined;

  constructor(options: CircuitsOptions) {
    this.strategies = new Strategies(options.random);
    this.registry = new CircuitRegistry(options.capacity);
    this.#detachedGraceMs = options.detachedGraceMs ?? 60_000;
    const { links, shared } = options;
    this.#records = shared?.records;
    const messenger =
      options.messenger ??
      localMessenger({
        get: (routerId) => {
          const channel = options.routers.channelOf(routerId);
          return channel && { channel };
        },
      });
    this.ends = new CircuitEnds({
      registry: this.registry,
      strategies: this.strategies,
      messenger,
      clock: options.clock,
      logger: options.logger,
      metrics: options.metrics,
      records: shared?.records,
      events: options.events,
    });
    this.deps = {
      store: options.store,
      clock: options.clock,
      logger: options.logger,
      strategies: this.strategies,
      registry: this.registry,
      routers: options.routers,
      messenger,
      pathsFrom: links
        ? async (sourceRouterId) => {
            const snapshot = await links.snapshot();
            return (destRouterId) => shortestPath(snapshot, sourceRouterId, destRouterId);
          }
        : (sourceRouterId) => Promise.resolve(oneRouterPaths(sourceRouterId)),
      routeTimeoutMs: options.routeTimeoutMs ?? 10_000,
      retries: options.retries ?? 2,
      metrics: options.metrics,
      events: options.events,
      routing: new Set(),
      links,
      records: shared?.records,
      ends: this.ends,
      rerouting: new Set(),
      pathUpdated: [],
    };
    this.#smart = options.smart ?? DEFAULT_SMART_REROUTE;
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
    if (this.deps.links) this.#cycleTimer ??= setInterval(() => void this.networkCycle(), this.#smart.cycleMs).unref();
  }

  /**
   * One network cycle (upstream Network.Run's ticker): circuits moved onto cheaper paths (smart rerouting). A cycle
   * still running when the next is due is not doubled; the promise settles when the running one has.
   */
  networkCycle(): Promise<void> {
    const { links } = this.deps;
    if (!links) return Promise.resolve();
    this.#cycle ??= smartRerouteCycle(this.deps, links, this.#smart)
      .catch((error: unknown) => this.deps.logger.error({ err: error }, 'smart reroute cycle failed'))
      .finally(() => (this.#cycle = undefined));
    return this.#cycle;
  }

  /** Hears every circuit moved to another path (upstream's circuit event `pathUpdated`). */
  onPathUpdated(listener: PathUpdatedListener): void {
    this.deps.pathUpdated.push(listener);
  }

  /** Stops the timer; the circuits' records go (this process's circuits go with it, as upstream's). */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    clearInterval(this.#cycleTimer);
    this.#timer = this.#cycleTimer = undefined;
    await this.#cycle;
    await this.#records?.close();
  }

  tick(): void {
    this.strategies.creditOverTime();
    this.ends.expire(this.#detachedGraceMs);
  }

  /** A router's channel is (again) held here: its circuits stop waiting for it. */
  attached(routerId: string): void {
    this.registry.reattach(routerId);
  }

  /** CreateCircuitV2 (20218): the 20219 answer or an edge error. */
  create(routerId: string, request: CreateCircuitRequest): Promise<Outgoing> {
    return createCircuit(this.deps, routerId, request);
  }

  /** A router's fabric CircuitRequest (1000, from its proxy and transport listeners): 1001 or 1016. */
  request(routerId: string, request: CircuitRequest): Promise<Outgoing> {
    return requestCircuit(this.deps, routerId, request);
  }

  /** A dial already checked by its asker (the router's tunneler, tunnel/tunnel-circuits.ts); throws its refusal. */
  dial(
    routerId: string,
    request: DialInput,
    checked: CheckedSession,
    started: number,
  ): Promise<{ circuit: Circuit; peerData: PeerData }> {
    return dialCircuit(this.deps, { sourceRouterId: routerId, request, ...checked, started });
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
    return this.ends.remove(circuitId, now, end, detail);
  }
}
