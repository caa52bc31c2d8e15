// What circuit work needs from the process: the store, time, logs, the strategies' costs, this process's circuits,
// the routers it can reach (`messenger`: through the store when another process holds them, issue 24), the links
// under paths, and the store's records every process lists circuits from.
import type { Clock } from '../../lib/clock.js';
import type { Store } from '../../store/store.js';
import type { ControlChannel, FabricLogger } from '../ctrl/router-channel.js';
import type { FabricMetrics } from '../ctrl/fabric-metrics.js';
import type { CircuitEnds } from './circuit-ends.js';
import type { Link } from '../links/link-model.js';
import type { NetworkSnapshot, Path } from '../links/paths.js';
import type { RouteMessenger } from './reroute.js';
import type { CircuitRecords } from './circuit-records.js';
import type { Circuit, CircuitRegistry } from './circuit-registry.js';
import type { Strategies } from './strategies.js';
import type { FabricEvents } from '../fabric-events.js';

export interface RouterMessenger {
  /** The router's channel when this process holds it. */
  channelOf(routerId: string): ControlChannel | undefined;
  /** Whether the router is connected to any process (its terminators may be chosen). */
  isOnline(routerId: string): boolean;
}

/** What circuits need of the links (fabric/links/links.ts `Links`). */
export interface CircuitLinks {
  snapshot(): Promise<NetworkSnapshot>;
  onLinksLost(listener: (links: readonly Link[]) => void): void;
}

export type PathUpdatedListener = (circuit: Readonly<Circuit>) => void;

export interface CircuitDeps {
  store: Store;
  clock: Clock;
  logger: FabricLogger;
  strategies: Strategies;
  registry: CircuitRegistry;
  routers: RouterMessenger;
  /** Route and Unroute messages to any router of a path (the routers' channels; the seam for other processes). */
  messenger: RouteMessenger;
  /** The paths from a dialling router, one network snapshot per dial attempt (links.snapshot + shortestPath). */
  pathsFrom(sourceRouterId: string): Promise<(destRouterId: string) => Path | undefined>;
  /** How long one route attempt waits for its result (upstream RouteTimeout, 10 s). */
  routeTimeoutMs: number;
  /** Attempts in all (upstream CreateCircuitRetries, 2). */
  retries: number;
  metrics: FabricMetrics | undefined;
  /** Operators' events (src/events/): circuits created, moved, ended, failed. */
  events: FabricEvents | undefined;
  /** Ids of circuits whose routes are being set up now. */
  routing: Set<string>;
  /** The routers' links (paths over them, circuits moved when one goes); without, one-router circuits only. */
  links: CircuitLinks | undefined;
  /** The store's records of this process's circuits (circuit-records.ts); without, they are this process's alone. */
  records: Pick<CircuitRecords, 'put' | 'ownedElsewhere'> | undefined;
  /** How circuits end (removed with their Unroutes, or forgotten once already unrouted). */
  ends: CircuitEnds;
  /** Ids of circuits being moved to another path now (upstream's circuit.Rerouting): one move at a time. */
  rerouting: Set<string>;
  /** Who hears that a circuit moved to another path (upstream's circuit event `pathUpdated`). */
  pathUpdated: PathUpdatedListener[];
}
