// A process's circuits over their life (ziti controller/handler_ctrl fault.go, circuit_confirmation.go,
// route_result.go and network.RemoveCircuit in v1.1.8): created on a router's CreateCircuitV2, ended by a Fault
// from either side, by an idle check, or by their router staying away; a router asking about a circuit this
// process does not know (a restart forgot it) is told to unroute it. A circuit over a link that goes away is moved to
// another path, or ended when there is none (issue 24).
import { fromBinary } from '@bufbuild/protobuf';
import type { Clock } from '../../lib/clock.js';
import type { Store } from '../../store/store.js';
import { edgeServiceById } from '../../store/queries/edge-sessions.js';
import type { Message } from '../channel/message.js';
import {
  CircuitConfirmationSchema,
  ContentType as CtrlType,
  FaultSchema,
  FaultSubject,
  type Fault,
} from '../messages/gen/ctrl_pb.js';
import type { CircuitsView } from '../network-views.js';
import { ContentType as EdgeType } from '../messages/gen/edge_ctrl_pb.js';
import { ControlContentType } from '../messages/headers.js';
import { decodeCreateCircuitRequest, decodeRouteResult, unrouteMessage } from './circuit-messages.js';
import { CircuitRegistry, circuitSummary, type Circuit } from './circuit-registry.js';
import { localMessenger } from '../links/messenger.js';
import type {
  CircuitDeps,
  CircuitEnd,
  ControlChannel,
  FabricLogger,
  FabricMetrics,
  RouterMessenger,
} from './circuit-deps.js';
import { createCircuit } from './create-circuit.js';
import { Strategies } from './strategies.js';
import type { Link } from '../links/link-model.js';
import { shortestPath, type NetworkSnapshot, type Path } from '../links/paths.js';
import {
  rerouteCircuit,
  rerouteCircuits,
  type RerouteDeps,
  type RerouteOutcome,
  type RouteMessenger,
} from '../links/reroute.js';

/** What circuits need of the links (fabric/links/links.ts `Links`). */
export interface CircuitLinks {
  snapshot(): Promise<NetworkSnapshot>;
  onLinksLost(listener: (links: readonly Link[]) => void): void;
}

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
  /**
   * Faults (1004) carry link and circuit subjects on one content type, and a channel keeps one handler per type:
   * the links take theirs first (true when the fault was about a link).
   */
  linkFault?: (routerId: string, fault: Fault) => boolean;
  /** The routers' links: paths over them, and circuits moved when one is lost. Without: one-router circuits only. */
  links?: CircuitLinks;
  /** Reaches routers held by other processes too (links/router-inbox.ts); without, this process's channels only. */
  messenger?: RouteMessenger;
  /** Records which process owns a circuit spanning several processes (see CircuitOwners). */
  owners?: CircuitOwners;
}

/**
 * Circuits whose path includes a router another process holds are recorded with their owner, so that process does
 * not unroute them as unknown (a router's CircuitConfirmation, a forward fault) while their owner lives.
 */
export interface CircuitOwners {
  /**
   * The circuit's path has routers held elsewhere: it is recorded as this process's, before the dial is answered (the
   * far routers may ask about it at once, and their process must find its owner).
   */
  claim(circuitId: string, routerIds: readonly string[]): Promise<void>;
  release(circuitId: string): void;
  /** Those of these circuits another live process owns. */
  ownedElsewhere(circuitIds: readonly string[]): Promise<Set<string>>;
}

const onlyItself =
  (sourceRouterId: string) =>
  (destRouterId: string): Path | undefined =>
    destRouterId === sourceRouterId ? { routerIds: [sourceRouterId], linkIds: [], cost: 0 } : undefined;

export class Circuits {
  readonly strategies: Strategies;
  readonly registry: CircuitRegistry;
  readonly deps: CircuitDeps;
  /** Circuits whose routes are being set up: a result for them that nobody waits for is a stale attempt's. */
  readonly #routing = new Set<string>();
  readonly #detachedGraceMs: number;
  readonly #linkFault: ((routerId: string, fault: Fault) => boolean) | undefined;
  readonly #owners: CircuitOwners | undefined;
  readonly #links: CircuitLinks | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: CircuitsOptions) {
    this.strategies = new Strategies(options.random);
    this.registry = new CircuitRegistry(options.capacity);
    this.#detachedGraceMs = options.detachedGraceMs ?? 60_000;
    this.#linkFault = options.linkFault;
    this.#owners = options.owners;
    const { links } = options;
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
      routing: this.#routing,
      remove: (circuitId, now, end, detail) => void this.remove(circuitId, now, end, detail),
      ...(options.owners ? { owners: options.owners } : {}),
    };
    this.#links = links;
    links?.onLinksLost((lost) => void this.reroute(lost, links));
  }

  /**
   * Moves this process's circuits off links that went away (upstream rerouteLink): a new path is recorded, a circuit
   * with none left was unrouted on its old path and is forgotten.
   */
  async reroute(lost: readonly Link[], links: CircuitLinks): Promise<void> {
    try {
      const outcomes = await rerouteCircuits(this.#rerouteDeps(links), [...this.registry.all()], lost);
      this.#rerouted(outcomes, `no path left after links ${lost.map((link) => link.id).join(', ')} went away`);
    } catch (error) {
      this.deps.logger.error({ err: error }, 'could not re-route circuits off lost links');
    }
  }

  /**
   * A router could not forward these circuits (Fault ForwardFault: a link of theirs is gone at its end). Upstream
   * (network/fault.go) re-routes each known one, removing it when that fails; an unknown one is unrouted at that
   * router, unless the owner is unknown (UnknownOwnerForwardFault) or another process owns it.
   */
  async forwardFault(
    routerId: string,
    channel: ControlChannel,
    circuitIds: readonly string[],
    ownerKnown: boolean,
  ): Promise<void> {
    const known = circuitIds.map((id) => this.registry.get(id)).filter((circuit) => circuit !== undefined);
    const unknown = circuitIds.filter((id) => !this.registry.get(id));
    const elsewhere =
      ownerKnown && unknown.length > 0 && this.#owners ? await this.#owners.ownedElsewhere(unknown) : new Set<string>();
    if (ownerKnown)
      for (const circuitId of unknown) if (!elsewhere.has(circuitId)) channel.send(unrouteMessage(circuitId, true));
    if (known.length === 0) return;
    this.deps.logger.info(
      { routerId, circuitIds: known.map((circuit) => circuit.id) },
      'forward fault: re-routing circuits',
    );
    const links = this.#links;
    if (!links) {
      for (const circuit of known)
        this.remove(circuit.id, true, 'no path left', `router ${routerId} could not forward it`);
      return;
    }
    try {
      const outcomes = await Promise.all(known.map((circuit) => rerouteCircuit(this.#rerouteDeps(links), circuit)));
      this.#rerouted(outcomes, `no path left after router ${routerId} could not forward it`);
    } catch (error) {
      this.deps.logger.error({ err: error }, 'could not re-route circuits after a forward fault');
    }
  }

  #rerouteDeps(links: CircuitLinks): RerouteDeps {
    return {
      path: async (source: string, dest: string) => shortestPath(await links.snapshot(), source, dest),
      messenger: this.deps.messenger,
      routeTimeoutMs: this.deps.routeTimeoutMs,
      logger: this.deps.logger,
    };
  }

  #rerouted(outcomes: readonly RerouteOutcome[], detail: string): void {
    for (const outcome of outcomes) {
      if (outcome.rerouted) {
        this.registry.setPath(outcome.circuitId, outcome.path, this.deps.clock().getTime());
        void this.#owners?.claim(outcome.circuitId, outcome.path.routerIds);
      } else {
        const circuit = this.registry.remove(outcome.circuitId);
        if (circuit) this.#ended(circuit, 'no path left', detail);
      }
    }
  }

  /** Once a minute: failures are credited back (upstream's CreditOverTime) and routers that stayed away lose their circuits. */
  start(intervalMs = 60_000): void {
    this.#timer ??= setInterval(() => this.tick(), intervalMs).unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  tick(): void {
    this.strategies.creditOverTime();
    for (const circuit of this.registry.expire(this.deps.clock().getTime(), this.#detachedGraceMs))
      this.#ended(circuit, 'router gone', `its router did not reconnect within ${this.#detachedGraceMs} ms`);
  }

  /** Serves a router's circuit messages on its channel. */
  attach(routerId: string, channel: ControlChannel): void {
    this.registry.reattach(routerId);
    channel.handle(EdgeType.CreateCircuitV2RequestType, async (message) => {
      let request;
      try {
        request = decodeCreateCircuitRequest(message);
      } catch (error) {
        this.deps.logger.error({ routerId, err: error }, 'could not decode CreateCircuitV2 request: not answered');
        return;
      }
      channel.reply(message, await createCircuit(this.deps, routerId, request));
    });
    channel.handle(CtrlType.FaultType, (message) => this.#fault(routerId, channel, message));
    channel.handle(CtrlType.CircuitConfirmationType, (message) => this.#confirm(routerId, channel, message));
    channel.handle(ControlContentType.routeResult, (message) => this.#lateRouteResult(routerId, channel, message));
  }

  /** What `/fabric/v1/circuits` shows: the circuits this process routed, with their paths. */
  readonly view: CircuitsView = {
    list: () => Promise.resolve([...this.registry.all()].map(circuitSummary)),
    get: (id) => {
      const circuit = this.registry.get(id);
      return Promise.resolve(circuit && circuitSummary(circuit));
    },
    remove: (id, immediate) => Promise.resolve(this.remove(id, immediate, 'removed by an operator') !== undefined),
  };

  /** The router's channel closed: its circuits wait for it (the router keeps forwarding) for the grace. */
  detach(routerId: string): void {
    this.registry.detach(routerId, this.deps.clock().getTime());
  }

  /** Ends a circuit (network.RemoveCircuit): Unroute to every router of its path, forget it, tell its strategy. */
  remove(circuitId: string, now: boolean, end: CircuitEnd, detail?: string): Circuit | undefined {
    const circuit = this.registry.get(circuitId);
    if (!circuit) return undefined;
    for (const routerId of circuit.path.routerIds)
      void this.deps.messenger.send(routerId, unrouteMessage(circuitId, now)).catch(() => undefined);
    this.registry.remove(circuitId);
    this.#ended(circuit, end, detail);
    return circuit;
  }

  #ended(circuit: Circuit, end: CircuitEnd, detail?: string): void {
    this.#owners?.release(circuit.id);
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

  #fault(routerId: string, channel: ControlChannel, message: Message): void {
    const fault = fromBinary(FaultSchema, message.body);
    if (this.#linkFault?.(routerId, fault)) return;
    if (fault.subject === FaultSubject.IngressFault || fault.subject === FaultSubject.EgressFault) {
      const end = fault.subject === FaultSubject.IngressFault ? 'dialling side closed' : 'hosting side closed';
      if (!this.remove(fault.id, false, end))
        this.deps.logger.debug({ routerId, circuitId: fault.id }, 'fault for an unknown circuit');
    } else if (fault.subject === FaultSubject.ForwardFault || fault.subject === FaultSubject.UnknownOwnerForwardFault) {
      void this.forwardFault(
        routerId,
        channel,
        fault.id.split(' ').filter(Boolean),
        fault.subject === FaultSubject.ForwardFault,
      );
    } else {
      this.deps.logger.debug(
        { routerId, subject: fault.subject, id: fault.id },
        'link fault ignored: this controller makes no links',
      );
    }
  }

  async #confirm(routerId: string, channel: ControlChannel, message: Message): Promise<void> {
    const confirmation = fromBinary(CircuitConfirmationSchema, message.body);
    this.deps.logger.info(
      { routerId, circuitCount: confirmation.circuitIds.length },
      'received circuit confirmation request',
    );
    const unknown = confirmation.circuitIds.filter((circuitId) => !this.registry.get(circuitId));
    const elsewhere =
      unknown.length > 0 && this.#owners ? await this.#owners.ownedElsewhere(unknown) : new Set<string>();
    for (const circuitId of confirmation.circuitIds) {
      if (elsewhere.has(circuitId)) continue;
      const circuit = this.registry.get(circuitId);
      if (!circuit || !circuit.path.routerIds.includes(routerId)) {
        channel.send(unrouteMessage(circuitId, true));
        this.deps.logger.info({ routerId, circuitId }, 'sent unroute to router for circuit');
        continue;
      }
      const idleNanos = confirmation.idleTimes[circuitId];
      const service = await this.deps.store.read((db) => edgeServiceById(db, circuit.serviceId));
      if (!service) this.remove(circuitId, true, 'service deleted');
      else if (
        idleNanos !== undefined &&
        service.maxIdleTimeMillis > 0 &&
        idleNanos >= BigInt(service.maxIdleTimeMillis) * 1_000_000n
      ) {
        this.remove(
          circuitId,
          true,
          'idle',
          `idle for ${idleNanos / 1_000_000n} ms, past the service's maximum of ${service.maxIdleTimeMillis} ms`,
        );
      }
    }
  }

  /**
   * A RouteResult no request waited for (it came after its attempt timed out). Upstream unroutes any circuit it is
   * not routing at that moment, live ones included; a circuit set up by a later attempt is left alone here, as
   * the router's forwarding table already holds that attempt's route.
   */
  #lateRouteResult(routerId: string, channel: ControlChannel, message: Message): void {
    const result = decodeRouteResult(message);
    if (!result) {
      this.deps.logger.error({ routerId }, 'missing attempt header in route result');
    } else if (!this.#routing.has(result.circuitId) && !this.registry.get(result.circuitId)) {
      this.deps.logger.warn(
        { routerId, circuitId: result.circuitId },
        'route result for a circuit not being routed: sending unroute',
      );
      channel.send(unrouteMessage(result.circuitId, true));
    }
  }
}
