// What one process's Links share with every other process (docs/reference/router-control-plane-links.md §5.8): the
// links routers reported anywhere and the routers online on other instances, both read from the store, and the
// messenger that reaches a router wherever it is held. Links (links.ts) writes its own routers' link events through
// this and, once a second, compares what it reads with what it read before: routers that came or went elsewhere are
// told to its own routers (PeerStateChanges), links that stopped being usable move the circuits over them.
import type { Listener } from '../messages/gen/ctrl_pb.js';
import type { Link } from './link-model.js';
import type { RouteMessenger } from '../circuits/reroute.js';

/** A router online on another instance: a peer of this process's routers, and a node of every path. */
export interface RemoteRouter {
  routerId: string;
  instanceId: string;
  connectedAt: string;
  version: string;
  linkListeners: Listener[];
  cost: number;
  noTraversal: boolean;
}

/** The routers online on other instances, by id. */
export type RemoteRouters = ReadonlyMap<string, RemoteRouter>;

export interface SharedView {
  /** Routers online on other (live) instances, by id. */
  routers: RemoteRouters;
  /** Every stored link, by id. */
  links: ReadonlyMap<string, Link>;
}

/** What an operator may change of a link (upstream linkPatch). */
export interface LinkChange {
  staticCost?: number;
  down?: boolean;
}

export interface SharedNetwork {
  /** The store's view; a cached copy while the store has not moved (and for at most a second, for latencies). */
  read(): Promise<SharedView>;
  /** A link reported by a router this process holds (a newer iteration replaces it). */
  linkReported(link: Link): Promise<void>;
  /** Links faulted, removed, or dialled by a router that left this process. */
  linksGone(ids: readonly string[]): Promise<void>;
  /** An operator's static cost or down flag of a link; false when the store has no such link. */
  linkChanged(id: string, change: LinkChange): Promise<boolean>;
  /** One router's measured latencies (ns) of its links, for whichever end of each it is. */
  latencies(routerId: string, latencies: ReadonlyMap<string, number>): Promise<void>;
  /** Reaches a router held by any process (faults relayed to a link's other end). */
  messenger: RouteMessenger;
}

export const emptyView: SharedView = { routers: new Map(), links: new Map() };

/** Routers online elsewhere now that were not (or reconnected since), and those no longer online elsewhere. */
export function peerChanges(before: RemoteRouters, after: RemoteRouters): { came: RemoteRouter[]; went: string[] } {
  const came = [...after.values()].filter((router) => {
    const was = before.get(router.routerId);
    return !was || was.instanceId !== router.instanceId || was.connectedAt !== router.connectedAt;
  });
  return { came, went: [...before.keys()].filter((id) => !after.has(id)) };
}

/** The links that can carry traffic: usable, with both routers online somewhere. */
export function carryingLinks(
  links: Iterable<Link>,
  isOnline: (routerId: string) => boolean,
  isUsable: (link: Link) => boolean,
): Map<string, Link> {
  const carrying = new Map<string, Link>();
  for (const link of links)
    if (isUsable(link) && isOnline(link.srcRouterId) && isOnline(link.dstRouterId)) carrying.set(link.id, link);
  return carrying;
}

/**
 * The stored links and this process's own, which win (the store may not have them yet, or still have them after a
 * fault here) but for the latencies: each end's is written to the store by the process holding that end.
 */
export function allLinks(view: SharedView, own: { all(): Iterable<Link> }): Map<string, Link> {
  const links = new Map(view.links);
  for (const link of own.all()) {
    const stored = view.links.get(link.id);
    links.set(
      link.id,
      stored?.iteration === link.iteration
        ? { ...link, srcLatency: stored.srcLatency, dstLatency: stored.dstLatency }
        : link,
    );
  }
  return links;
}
