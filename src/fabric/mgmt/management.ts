// The management side of a process's fabric, built in one place: the inspections (REST and channel share them) and
// the management-channel table with its handlers, over the parts the fabric already has (the messenger that reaches
// any router of the cluster, the links' view, the terminators' removal of invalid ones).
import type { FabricMetrics } from '../ctrl/fabric-metrics.js';
import { formatTimestamp, type Clock } from '../../lib/clock.js';
import type { Settings } from '../../settings/settings.schema.js';
import { connectedRouters } from '../../store/queries/router-presence.js';
import type { Store } from '../../store/store.js';
import type { RouteMessenger } from '../circuits/reroute.js';
import type { FabricLogger } from '../ctrl/router-channel.js';
import type { LinksView } from '../network-views.js';
import type { Terminators } from '../terminators/terminators.js';
import { controllerValues } from './controller-values.js';
import { Inspections } from './inspections.js';
import { MgmtMessages } from './mgmt-messages.js';
import { mgmtMessages } from './mgmt-table.js';
import { EventStreams, type EventSource } from './stream-events.js';

/** What the validations select with the CLI's filter (the REST lists' filter language: entities/network). */
export interface MgmtSelectors {
  terminatorIds(filter: string): Promise<string[]>;
  routers(filter: string): Promise<{ id: string; name: string }[]>;
}

export interface ManagementOptions {
  store: Store;
  clock: Clock;
  settings: Settings;
  logger: FabricLogger;
  /** The controller's id (the hello's header 8): the app id inspections name it by. */
  controllerId: string;
  instanceOfflineAfterMs: number;
  messenger: RouteMessenger;
  links: LinksView;
  terminators: Pick<Terminators, 'removeInvalid'>;
  selectors: MgmtSelectors | undefined;
  /** The process's events; absent: `stream events` is refused. */
  events: EventSource | undefined;
  /** The controller's metrics (the `metrics` inspection), when it keeps them. */
  metrics?: Pick<FabricMetrics, 'snapshot'> | undefined;
}

export interface Management {
  inspections: Inspections;
  messages: MgmtMessages;
}

const nothingSelected: MgmtSelectors = {
  terminatorIds: () => Promise.resolve([]),
  routers: () => Promise.resolve([]),
};

export function management(options: ManagementOptions): Management {
  const { store, clock, messenger, instanceOfflineAfterMs } = options;
  const selectors = options.selectors ?? nothingSelected;
  const connected = async () => {
    const since = formatTimestamp(new Date(clock().getTime() - instanceOfflineAfterMs));
    return store.read((db) => connectedRouters(db, since));
  };
  const inspections = new Inspections({
    appId: options.controllerId,
    local: controllerValues({
      settings: options.settings,
      store,
      clock,
      instanceOfflineAfterMs,
      controllerId: options.controllerId,
      metrics: options.metrics,
    }),
    connectedRouters: connected,
    messenger,
  });
  const messages = new MgmtMessages(
    mgmtMessages({
      appId: options.controllerId,
      events: options.events ? new EventStreams(options.events, options.logger) : undefined,
      inspections,
      terminators: {
        store,
        messenger,
        selectTerminators: (filter) => selectors.terminatorIds(filter),
        removeInvalid: (routerId, response) => options.terminators.removeInvalid(routerId, response),
      },
      routers: {
        store,
        messenger,
        selectRouters: (filter) => selectors.routers(filter),
        connectedRouterIds: async () => new Set((await connected()).map((router) => router.id)),
        links: () => options.links.list(),
      },
    }),
    options.logger,
  );
  return { inspections, messages };
}
