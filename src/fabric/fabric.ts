// The fabric of one process, built in one place: the control plane that accepts routers, the parts that handle their
// messages (circuits, terminators, links, the edge sync), the table that binds those messages (router-messages.ts),
// and the delivery to routers other processes hold (ctrl/router-inbox.ts, docs/reference/router-control-plane-links.md
// §5.8). It knows no HTTP: the REST side reads the views it exposes.
import type { Logger } from 'pino';
import type { Clock } from '../lib/clock.js';
import type { Pki } from '../pki/ensure-pki.js';
import type { Settings } from '../settings/settings.schema.js';
import type { Store } from '../store/store.js';
import { routersForConnection } from '../store/queries/router-presence.js';
import { ControlPlane } from './ctrl/control-plane.js';
import { RouterMessages } from './ctrl/router-messages.js';
import type { FabricMetrics } from './ctrl/fabric-metrics.js';
import { RouterInbox } from './ctrl/router-inbox.js';
import { startLinks } from './links/network-links.js';
import type { Links } from './links/links.js';
import { CircuitRecords } from './circuits/circuit-records.js';
import { Circuits } from './circuits/circuits.js';
import { Terminators } from './terminators/terminators.js';
import { EdgeSync } from './edge-sync/edge-sync.js';
import type { NetworkViews } from './network-views.js';
import { routerMessages } from './router-messages.js';
import type { FabricEvents } from './fabric-events.js';
import { CertificateRenewal } from './ctrl/certificate-renewal.js';
import { RouterDrain } from './ctrl/router-drain.js';
import { management, type Management, type MgmtSelectors } from './mgmt/management.js';
import type { EventSource } from './mgmt/stream-events.js';
import { Tunnel } from './tunnel/tunnel.js';
import type { EntityDeps } from '../app-deps.js';

export interface FabricOptions {
  store: Store;
  pki: Pki;
  settings: Settings;
  clock: Clock;
  logger: Logger;
  metrics: FabricMetrics | undefined;
  instanceId: string;
  /** Header 8 of the hello result: every instance of one cluster is one controller to the routers. */
  controllerId: string;
  /** Header 4 of the hello result (system/build-info.ts versionHeader). */
  versionHeader: string;
  /** The version the edge hello announces (system/build-info.ts wireVersion). */
  wireVersion: string;
  /** An instance not seen for this long is dead (system/instance-heartbeat.ts OFFLINE_AFTER_MS). */
  instanceOfflineAfterMs: number;
  /** The instance this process succeeds on its home (system/instance-succession.ts): its routers are released. */
  predecessorId?: string | undefined;
  /** Deletes a router with the REST delete's rules (a router decommissioning itself). */
  removeRouter: (routerId: string) => Promise<void>;
  /** Where routers' API-session heartbeats record their clients' activity (ApiSessions.recordActivity). */
  recordActivity: (apiSessionIds: Iterable<string>) => void;
  /** Operators' events (src/events/): circuits, links and the routers' metrics, told where they happen. */
  events: FabricEvents | undefined;
  /** What the management channel's validations select with a filter; absent: nothing. */
  mgmtSelectors?: MgmtSelectors;
  /** The events `ziti fabric stream events` subscribes to; absent: refused. */
  eventSource?: EventSource;
  /** What the routers' tunnelers' API sessions and sessions are made with, as a client's are. */
  entityDeps: EntityDeps;
}

export class Fabric {
  readonly controlPlane: ControlPlane;
  readonly inbox: RouterInbox;
  readonly links: Links;
  readonly circuits: Circuits;
  readonly terminators: Terminators;
  readonly edgeSync: EdgeSync;
  readonly tunnel: Tunnel;
  readonly messages: RouterMessages;
  /** Inspections and the management channel's table (mgmt/). */
  readonly management: Management;

  constructor(options: FabricOptions) {
    const { store, clock, logger, metrics, instanceId, instanceOfflineAfterMs } = options;
    this.controlPlane = new ControlPlane({
      store,
      pki: options.pki,
      settings: options.settings,
      clock,
      logger,
      instanceId,
      controllerId: options.controllerId,
      versionHeader: options.versionHeader,
      instanceOfflineAfterMs,
      predecessorId: options.predecessorId,
    });
    const routers = this.controlPlane.routers;
    const held = { store, clock, instanceId, instanceOfflineAfterMs };
    this.inbox = new RouterInbox({
      ...held,
      routers,
      holdsAny: () => routers.all()[Symbol.iterator]().next().done !== true,
      logger,
    });
    const { settings } = options;
    this.links = startLinks(routers, store, logger, {
      shared: { ...held, messenger: this.inbox.messenger },
      events: options.events,
      minRouterCost: settings.networkMinRouterCost,
    });
    const records = new CircuitRecords({
      ...held,
      holds: (routerId) => routers.get(routerId) !== undefined,
      onError: (error) => logger.warn({ err: error }, 'could not record circuits in the store'),
    });
    this.circuits = new Circuits({
      store,
      clock,
      logger,
      metrics,
      events: options.events,
      // One process holds each router's channel; a router held by another process is reached through the store.
      routers: {
        channelOf: (routerId) => routers.get(routerId)?.channel,
        isOnline: (routerId) => this.links.isOnline(routerId),
      },
      links: this.links,
      messenger: this.inbox.messenger,
      shared: { records, inbox: this.inbox },
      routeTimeoutMs: settings.networkRouteTimeoutMs,
      retries: settings.networkCreateCircuitRetries,
      smart: {
        cycleMs: settings.networkCycleMs,
        rerouteFraction: settings.networkSmartRerouteFraction,
        rerouteCap: settings.networkSmartRerouteCap,
        minCostDelta: settings.networkSmartMinCostDelta,
      },
    });
    this.terminators = new Terminators({ store, clock, logger, strategies: this.circuits.strategies, metrics });
    this.edgeSync = new EdgeSync({
      store,
      clock,
      version: options.wireVersion,
      connections: routers,
      recordActivity: options.recordActivity,
      logger,
    });
    this.tunnel = new Tunnel({
      deps: { ...options.entityDeps, recordActivity: options.recordActivity },
      logger,
      strategies: this.circuits.strategies,
      circuits: this.circuits,
      sessionTimeoutMs: options.settings.sessionTimeoutMs,
      metrics,
    });
    this.messages = new RouterMessages(
      routerMessages({
        circuits: this.circuits,
        terminators: this.terminators,
        links: this.links,
        edgeSync: this.edgeSync,
        routerMetrics: (routerId, metrics) => options.events?.routerMetrics(routerId, metrics),
        renewal: new CertificateRenewal({
          store,
          pki: options.pki,
          clock,
          logger,
          renewed: (routerId, fingerprint) => this.controlPlane.certificateRenewed(routerId, fingerprint),
        }),
        drain: new RouterDrain({ store, clock, logger, removeRouter: options.removeRouter }),
        tunnel: this.tunnel,
        tunnelCircuits: this.tunnel.circuits,
        fingerprintOf: async (routerId) =>
          (await store.read((db) => routersForConnection(db, [routerId])))[0]?.fingerprint,
      }),
      logger,
    );
    this.management = management({
      store,
      clock,
      settings: options.settings,
      logger,
      controllerId: options.controllerId,
      instanceOfflineAfterMs,
      messenger: this.inbox.messenger,
      links: this.links.view,
      terminators: this.terminators,
      selectors: options.mgmtSelectors,
      events: options.eventSource,
      metrics,
    });
    routers.onConnected(({ routerId, channel }) => {
      this.messages.bind(routerId, channel);
      this.circuits.attached(routerId);
      this.terminators.attached(routerId, channel);
    });
    routers.onDisconnected(({ routerId }) => this.circuits.detached(routerId));
    this.circuits.onPathUpdated((circuit) => options.events?.circuitPathUpdated(circuit));
  }

  /** What the REST side shows of circuits and links. */
  get views(): NetworkViews {
    return { circuits: this.circuits.view, links: this.links.view };
  }

  async start(): Promise<void> {
    await this.edgeSync.start();
    await this.controlPlane.start();
    this.circuits.start();
    this.inbox.start();
    this.links.network?.start();
  }

  /** Closes every router channel and marks this process's routers offline (alongside the API's shutdown). */
  releaseRouters(): Promise<void> {
    return this.controlPlane.close();
  }

  /** After releaseRouters and the requests in flight: timers end, this process's circuit records go. */
  async stop(): Promise<void> {
    await this.circuits.stop();
    await this.inbox.stop();
    this.links.network?.stop();
    // After the requests: a feed read in progress may wait for a request's write to finish.
    await this.edgeSync.stop();
  }
}
