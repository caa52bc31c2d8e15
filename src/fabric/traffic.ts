// SDK traffic through routers (issue 23): terminators and circuits served on every router channel this process
// holds. Started from the controller's composition with its router connections; `stop` ends the timers and removes
// this process's circuits' records (the circuits live in its memory and go with it, as upstream's).
import type { Clock } from '../lib/clock.js';
import type { Store } from '../store/store.js';
import { countTerminators } from '../store/queries/terminators.js';
import { Circuits, type CircuitLinks, type CircuitsOptions } from './circuits/circuits.js';
import type { RouteMessenger } from './links/reroute.js';
import type { ControlChannel, FabricLogger, FabricMetrics } from './circuits/circuit-deps.js';
import { Terminators } from './terminators/terminators.js';
import type { Fault } from './messages/gen/ctrl_pb.js';
import type { FabricEvents } from './fabric-events.js';

/** What this needs of fabric/ctrl's RouterConnections (router-connections.ts). */
export interface HeldRouters {
  get(routerId: string): { channel: ControlChannel } | undefined;
  onConnected(
    listener: (connection: { routerId: string; channel: ControlChannel & { close(reason: string): void } }) => void,
  ): void;
  onDisconnected(listener: (connection: { routerId: string }) => void): void;
}

export interface TrafficOptions {
  routers: HeldRouters;
  store: Store;
  clock: Clock;
  logger: FabricLogger;
  metrics?: FabricMetrics;
  /** Operators' events (src/events/). */
  events?: FabricEvents;
  routeTimeoutMs?: number;
  retries?: number;
  maxCircuits?: number;
  /** The links' share of Fault messages (see CircuitsOptions.linkFault). */
  linkFault?: (routerId: string, fault: Fault) => boolean;
  /** The routers' links, for circuits over several routers (see CircuitsOptions.links). */
  links?: CircuitLinks;
  /**
   * Several processes (§5.8 of docs/reference/router-control-plane-links.md): routers held elsewhere.
   */
  elsewhere?: {
    messenger: RouteMessenger;
    isOnline(routerId: string): boolean;
    shared: NonNullable<CircuitsOptions['shared']>;
  };
}

export class TrafficFlows {
  readonly circuits: Circuits;
  readonly terminators: Terminators;

  constructor(options: TrafficOptions) {
    const { routers, store, clock, logger, metrics } = options;
    this.circuits = new Circuits({
      store,
      clock,
      logger,
      ...(metrics ? { metrics } : {}),
      ...(options.events ? { events: options.events } : {}),
      // One process holds each router's channel; a router held by another process is reached through the store.
      routers: {
        channelOf: (routerId) => routers.get(routerId)?.channel,
        isOnline: (routerId) => routers.get(routerId) !== undefined || options.elsewhere?.isOnline(routerId) === true,
      },
      ...(options.elsewhere ? { messenger: options.elsewhere.messenger, shared: options.elsewhere.shared } : {}),
      ...(options.routeTimeoutMs !== undefined ? { routeTimeoutMs: options.routeTimeoutMs } : {}),
      ...(options.retries !== undefined ? { retries: options.retries } : {}),
      ...(options.maxCircuits !== undefined ? { capacity: options.maxCircuits } : {}),
      ...(options.linkFault ? { linkFault: options.linkFault } : {}),
      ...(options.links ? { links: options.links } : {}),
    });
    this.terminators = new Terminators({
      store,
      clock,
      logger,
      strategies: this.circuits.strategies,
      ...(metrics ? { metrics } : {}),
    });
    routers.onConnected((connection) => {
      this.terminators.attach(connection.routerId, connection.channel);
      this.circuits.attach(connection.routerId, connection.channel);
    });
    routers.onDisconnected((connection) => this.circuits.detach(connection.routerId));
  }

  start(): void {
    this.circuits.start();
  }

  stop(): Promise<void> {
    return this.circuits.stop();
  }

  /** For the metrics: circuits held here, terminators in the store. */
  readonly circuitCount = (): number => this.circuits.registry.size;
  readonly terminatorCount = (store: Store): Promise<number> => store.read(countTerminators);
}
