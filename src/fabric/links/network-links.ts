// The links of the routers this process holds, started from the controller's composition on its RouterConnections,
// shared with the other processes through the store (docs/reference/router-control-plane-links.md §5.8).
import { readKeys } from '../../store/changes.js';
import { formatTimestamp, type Clock } from '../../lib/clock.js';
import type { Store } from '../../store/store.js';
import { writeAreas } from '../../store/store.js';
import {
  allFabricLinks,
  deleteFabricLink,
  onlineRouters,
  putFabricLink,
  setFabricLinkAdmin,
  setFabricLinkLatencies,
  type FabricLinkRow,
} from '../../store/queries/fabric-links.js';
import { routerPathAttributes } from '../../store/queries/router-costs.js';
import { ListenersSchema, type Listener } from '../messages/gen/ctrl_pb.js';
import { fromJson, type JsonValue } from '@bufbuild/protobuf';
import type { Link } from './link-model.js';
import { Links } from './links.js';
import type { LinkRouters } from './link-routers.js';
import type { FabricLogger } from '../ctrl/router-channel.js';
import type { RouteMessenger } from '../circuits/reroute.js';
import type { RemoteRouter, SharedNetwork, SharedView } from './shared-network.js';
import type { FabricEvents } from '../fabric-events.js';

export interface SharedNetworkOptions {
  store: Store;
  clock: Clock;
  instanceId: string;
  instanceOfflineAfterMs: number;
  messenger: RouteMessenger;
}

export function startLinks(
  routers: LinkRouters,
  store: Store,
  logger: FabricLogger,
  options: { shared?: SharedNetworkOptions; events?: FabricEvents; minRouterCost?: number },
): Links {
  const { shared, events, minRouterCost } = options;
  const links = new Links({
    routers,
    events,
    minRouterCost,
    routerAttributes: (ids) => store.read((db) => routerPathAttributes(db, ids)),
    routerExists: async (id) => (await store.read((db) => routerPathAttributes(db, [id]))).has(id),
    logger,
    shared: shared && storeNetwork(shared),
  });
  return links;
}

/** How long a read of the shared network is reused while its tables have not moved (latencies are bookkeeping writes). */
const VIEW_MAX_AGE_MS = 1000;
const NETWORK_ROWS = readKeys.network;

/**
 * The shared network in the store: link reports and faults are ordinary writes (they move `fabric_links`' change key
 * on every instance, so the next read sees them), latencies bookkeeping ones (at most one per router a minute).
 */
export function storeNetwork(options: SharedNetworkOptions): SharedNetwork {
  const { store, clock, instanceId, instanceOfflineAfterMs, messenger } = options;
  let cached: { view: SharedView; changesAt: number; at: number } | undefined;
  return {
    async read() {
      await store.refresh();
      const now = Date.now();
      if (cached && !store.changes.changedSince(NETWORK_ROWS, cached.changesAt) && now - cached.at < VIEW_MAX_AGE_MS)
        return cached.view;
      const changesAt = store.changes.now();
      const since = formatTimestamp(new Date(clock().getTime() - instanceOfflineAfterMs));
      const [online, rows] = await store.read(
        async (db) => [await onlineRouters(db, since), await allFabricLinks(db)] as const,
      );
      const routers = new Map<string, RemoteRouter>();
      for (const router of online) {
        if (router.instanceId === instanceId) continue;
        routers.set(router.routerId, {
          ...router,
          version: versionOf(router.versionInfo),
          linkListeners: listenersOf(router.linkListeners),
        });
      }
      const view = { routers, links: new Map(rows.map((row) => [row.id, linkOf(row)])) };
      cached = { view, changesAt, at: now };
      return view;
    },
    linkReported: (link) =>
      store.transaction((tx) =>
        putFabricLink(tx, {
          id: link.id,
          iteration: link.iteration,
          srcRouterId: link.srcRouterId,
          dstRouterId: link.dstRouterId,
          protocol: link.protocol,
          dialAddress: link.dialAddress,
          initialLatency: link.srcLatency,
        }),
      ),
    linksGone: (ids) =>
      store.transaction(async (tx) => {
        for (const id of ids) await deleteFabricLink(tx, id);
      }),
    linkChanged: (id, change) => store.transaction((tx) => setFabricLinkAdmin(tx, id, change)),
    latencies: (routerId, latencies) =>
      store.transaction((tx) => setFabricLinkLatencies(tx, routerId, latencies), {
        bookkeeping: true,
        touches: writeAreas.rowsOnly,
      }),
    messenger,
  };
}

const linkOf = (row: FabricLinkRow): Link => ({
  id: row.id,
  iteration: row.iteration,
  srcRouterId: row.src_router_id,
  dstRouterId: row.dst_router_id,
  protocol: row.protocol,
  dialAddress: row.dial_address,
  state: 'Connected',
  down: row.down === 1,
  staticCost: row.static_cost,
  srcLatency: row.src_latency,
  dstLatency: row.dst_latency,
});

/** router_presence.version_info: the hello's version info as JSON (router-presence.ts writes it). */
function versionOf(json: string | null): string {
  try {
    const parsed: unknown = json ? JSON.parse(json) : undefined;
    return typeof parsed === 'object' && parsed !== null && 'version' in parsed && typeof parsed.version === 'string'
      ? parsed.version
      : '';
  } catch {
    return '';
  }
}

/** router_presence.link_listeners: the hello's listeners (ctrl_pb.Listener[]) as JSON.stringify wrote them. */
function listenersOf(json: string | null): Listener[] {
  try {
    const parsed: unknown = json ? JSON.parse(json) : [];
    return Array.isArray(parsed)
      ? fromJson(ListenersSchema, { listeners: parsed as JsonValue[] }, { ignoreUnknownFields: true }).listeners
      : []; // a JSON array from JSON.parse
  } catch {
    return [];
  }
}
