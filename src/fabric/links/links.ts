// The network of links (issue 24) on the router channels this process holds, as upstream v1.1.8's controller/network:
// routers are told about each other (PeerStateChanges), report the links they dial (RouterLinks 1035), fault them
// (Fault 1004, LinkFault/LinkDuplicate, relayed to the link's other router), and paths are chosen over them.
// Links live in memory as upstream's: a controller restart forgets them and each router reports its links again when
// it reconnects (link_registry.go NotifyOfReconnect). With `shared` (several processes, §5.8 of
// docs/reference/router-control-plane-links.md) they are also written to the store, and the paths, the views and the
// routers' peers take in what the other processes hold.
import type { Message } from '../channel/message.js';
import { FaultSubject, type Fault, type Listener, type RouterLinks_RouterLink } from '../messages/gen/ctrl_pb.js';
import type { LinksView } from '../network-views.js';
import { isUsable, linkCost, linkSummary, LinkTable, type Link } from './link-model.js';
import { shortestPath, type NetworkSnapshot, type Path, type PathRouter } from './paths.js';
import { gone, healthy, linkFaultMessage, PeerStateOutbox, supportsLinkManagement, type Peer } from './peer-states.js';
import { allLinks, emptyView, type LinkChange, type SharedNetwork } from './shared-network.js';
import { NetworkSync } from './network-sync.js';
import type { LinkRouter, LinkRouters } from './link-routers.js';
import type { FabricLogger } from '../ctrl/router-channel.js';
import type { FabricEvents } from '../fabric-events.js';

export interface LinksOptions {
  routers: LinkRouters;
  /** Routers' cost and noTraversal (store/queries/router-costs.ts), for the ids asked. */
  routerAttributes(ids: readonly string[]): Promise<Map<string, { cost: number; noTraversal: boolean }>>;
  /** Whether the router still exists: a gone one is Removed for its peers, else Unhealthy. */
  routerExists(routerId: string): Promise<boolean>;
  logger: FabricLogger;
  maxLinks?: number;
  /** The cost each router of a path counts at least (settings `network.minRouterCost`; paths.ts's default without). */
  minRouterCost?: number;
  /** The links and routers of the other processes (several workers or instances); without, this process's only. */
  shared?: SharedNetwork;
  /** Operators' events (src/events/): links reported and faulted, the routers' metrics. */
  events?: FabricEvents;
  /** How long peer states gather before they go (peer-states.ts PEER_STATE_WINDOW_MS; 0: the turn's end). */
  peerStateWindowMs?: number;
}

/**
 * Links that stopped carrying traffic (faulted, or a router at one end gone), or that an operator changed: circuits
 * over them must find their path again (upstream's rerouteLink, one operation for both).
 */
export type LinksLostListener = (links: readonly Link[]) => void;

export class Links {
  readonly table: LinkTable;
  readonly #options: LinksOptions;
  readonly #lost: LinksLostListener[] = [];
  readonly #peerStates: PeerStateOutbox;
  /** The other processes' routers and links (several workers or instances); undefined: this process's only. */
  readonly network: NetworkSync | undefined;

  constructor(options: LinksOptions) {
    this.#options = options;
    this.#peerStates = new PeerStateOutbox(options.peerStateWindowMs);
    this.table = new LinkTable(options.maxLinks);
    this.network =
      options.shared &&
      new NetworkSync(options.shared, {
        routers: options.routers,
        table: this.table,
        routerExists: (routerId) => options.routerExists(routerId),
        notifyLost: (links) => this.#notifyLost(links),
        warn: (routerId, error) => this.#warn(routerId, error),
        logger: options.logger,
      });
    options.routers.onConnected((router) => this.#connected(router));
    options.routers.onDisconnected(
      (router) => void this.#disconnected(router).catch((error: unknown) => this.#warn(router.routerId, error)),
    );
  }

  onLinksLost(listener: LinksLostListener): void {
    this.#lost.push(listener);
  }

  /** The Fault (1004) subjects about links (LinkFault, LinkDuplicate), as upstream's faultHandler.handleFaultedLink. */
  fault(routerId: string, fault: Fault): void {
    const current = this.table.get(fault.id);
    const wasUsable = current !== undefined && isUsable(current);
    const link = this.table.faulted(fault.id, fault.iteration, fault.subject === FaultSubject.LinkDuplicate);
    if (!link && !current && this.network) {
      const { network } = this;
      void network
        .linkGone(routerId, fault.id, fault.iteration)
        .then(
          (found) =>
            found || this.#options.logger.info({ routerId, linkId: fault.id }, 'link fault for an unknown link'),
        )
        .catch((error: unknown) => this.#warn(routerId, error));
      return;
    }
    if (!link) {
      this.#options.logger.info(
        { routerId, linkId: fault.id, iteration: fault.iteration },
        current ? 'link fault for an older iteration ignored' : 'link fault for an unknown link',
      );
      return;
    }
    this.#options.logger.info(
      {
        routerId,
        linkId: link.id,
        iteration: fault.iteration,
        duplicate: fault.subject === FaultSubject.LinkDuplicate,
      },
      'link fault',
    );
    this.#options.events?.link(fault.subject === FaultSubject.LinkDuplicate ? 'duplicate' : 'fault', link);
    const forgotten = this.#options.shared?.linksGone([link.id]);
    if (!wasUsable) {
      void forgotten?.catch((error: unknown) => this.#warn(routerId, error));
      return;
    }
    const otherId = link.srcRouterId === routerId ? link.dstRouterId : link.srcRouterId;
    this.#afterShared(forgotten, () => {
      this.#sendTo(otherId, linkFaultMessage(link.id, fault.iteration));
      this.#notifyLost([link]);
    });
  }

  /** An operator's delete (upstream Network.RemoveLink): both routers told of a fault, circuits moved. */
  remove(linkId: string): boolean {
    const link = this.table.remove(linkId);
    if (!link) {
      const known = this.network?.remote.links.has(linkId) === true;
      if (known)
        void this.network
          ?.linkGone(undefined, linkId, undefined)
          .catch((error: unknown) => this.#warn(undefined, error));
      return known;
    }
    this.#afterShared(this.#options.shared?.linksGone([link.id]), () => {
      for (const routerId of [link.srcRouterId, link.dstRouterId])
        this.#sendTo(routerId, linkFaultMessage(link.id, link.iteration));
      this.#notifyLost([link]);
    });
    return true;
  }

  /**
   * An operator's change of a link's static cost or down flag (upstream LinkRouter.Patch): its circuits then find
   * their path again (upstream RerouteLink), the cheapest one now or none when it went down and there is no other.
   * False when no process knows the link. A link another process holds changes in the store; the circuits over it
   * move with that process's next cycle.
   */
  async update(linkId: string, change: LinkChange): Promise<boolean> {
    const link = this.table.get(linkId);
    const stored = await this.#options.shared?.linkChanged(linkId, change);
    if (!link) return stored === true;
    if (change.staticCost !== undefined) link.staticCost = change.staticCost;
    if (change.down !== undefined) link.down = change.down;
    this.#options.logger.info({ linkId, ...change }, 'link changed by an operator');
    this.#notifyLost([link]);
    return true;
  }

  /** The connected routers and links of this process's network, with the routers' costs from the store. */
  async snapshot(): Promise<NetworkSnapshot> {
    const connected = [...this.#options.routers.all()].map((r) => r.routerId);
    const attributes = await this.#options.routerAttributes(connected);
    const routers = new Map<string, PathRouter>();
    for (const id of connected) {
      const found = attributes.get(id);
      if (found) routers.set(id, { id, ...found });
    }
    const remote = (await this.network?.refresh()) ?? emptyView;
    for (const router of remote.routers.values())
      if (!routers.has(router.routerId))
        routers.set(router.routerId, { id: router.routerId, cost: router.cost, noTraversal: router.noTraversal });
    const links = [...this.#allLinks().values()].map((link) => ({
      id: link.id,
      srcRouterId: link.srcRouterId,
      dstRouterId: link.dstRouterId,
      cost: linkCost(link),
      usable: isUsable(link),
    }));
    return { routers, links, minRouterCost: this.#options.minRouterCost };
  }

  /** The cheapest path between two connected routers (upstream shortestPath), undefined when there is none. */
  async path(sourceRouterId: string, destRouterId: string): Promise<Path | undefined> {
    return shortestPath(await this.snapshot(), sourceRouterId, destRouterId);
  }

  /** What GET /fabric/v1/links shows, and PATCH changes. */
  readonly view: LinksView = {
    update: (id, change) => this.update(id, change),
    list: async () => {
      await this.network?.refresh();
      return [...this.#allLinks().values()].map(linkSummary);
    },
    get: async (id) => {
      await this.network?.refresh();
      const link = this.#allLinks().get(id);
      return link ? linkSummary(link) : undefined;
    },
  };

  #connected(router: LinkRouter): void {
    // upstream routerChangedEvent: the new router hears of every other one, every other one hears of it.
    const others = [...this.#options.routers.all()].filter((other) => other.routerId !== router.routerId);
    const elsewhere = [...(this.network?.remote ?? emptyView).routers.values()].filter(
      (other) => other.routerId !== router.routerId,
    );
    if (others.length + elsewhere.length === 0) return;
    if (supportsLinkManagement(router.versionInfo.version))
      this.#peerStates.queue(
        router.channel,
        [...others, ...elsewhere].map((other) => healthy(peerOf(other))),
      );
    const change = [healthy(peerOf(router))];
    for (const other of others)
      if (supportsLinkManagement(other.versionInfo.version)) this.#peerStates.queue(other.channel, change);
  }

  async #disconnected(router: LinkRouter): Promise<void> {
    const { routerId } = router;
    // upstream DisconnectRouter: links it dialled go; those towards it stay but carry nothing while it is away.
    const touching = this.table.linksOf(routerId).filter(isUsable);
    const dialled = this.table.sourceGone(routerId);
    // The store forgets them first: circuits moved now must not find them there.
    if (dialled.length > 0)
      await this.#options.shared
        ?.linksGone(dialled.map((link) => link.id))
        .catch((error: unknown) => this.#warn(routerId, error));
    if (touching.length > 0) this.#notifyLost(touching);
    const others = [...this.#options.routers.all()].filter(
      (other) => other.routerId !== routerId && supportsLinkManagement(other.versionInfo.version),
    );
    if (others.length === 0) return;
    const deleted = !(await this.#options.routerExists(routerId));
    // Back already (a quick reconnect told its peers it is healthy meanwhile): an Unhealthy now would be stale.
    if (this.#options.routers.get(routerId)) return;
    const change = [gone(routerId, deleted)];
    for (const other of others)
      if (this.#options.routers.get(other.routerId) === other) this.#peerStates.queue(other.channel, change);
  }

  /** RouterLinks (1035): the links a router dialled, reported when it connects and when it makes one. */
  routerLinks(routerId: string, channel: unknown, links: readonly RouterLinks_RouterLink[]): void {
    // A links message read after its connection was replaced is from the old connection (upstream NotifyExistingLink).
    if (this.#options.routers.get(routerId)?.channel !== channel) return;
    for (const reported of links) {
      if (!this.isOnline(reported.destRouterId))
        this.#options.events?.link('routerLinkDisconnectedDest', { id: reported.id });
      const result = this.table.reported(routerId, reported);
      if (!result) {
        this.#options.logger.warn(
          { routerId: routerId, linkId: reported.id, max: this.table.maxLinks },
          'router reported link refused: the link table is full',
        );
        continue;
      }
      this.#options.logger.info(
        {
          routerId: routerId,
          linkId: reported.id,
          destRouterId: reported.destRouterId,
          iteration: reported.iteration,
        },
        result.created ? 'router reported link added' : 'router reported link already known',
      );
      this.#options.events?.link(result.created ? 'routerLinkNew' : 'routerLinkKnown', result.link);
      if (result.created)
        void this.#options.shared?.linkReported(result.link).catch((error: unknown) => this.#warn(routerId, error));
    }
  }

  /**
   * Metrics (1007): each end's measured latency of its links (upstream AcceptMetricsMsg), truncated to whole ns as upstream's int64.
   */
  metrics(routerId: string, latencies: ReadonlyMap<string, number>): void {
    for (const [linkId, latency] of latencies) this.table.setLatency(routerId, linkId, latency);
    // This router may be the far end of a link another process holds: the store keeps both ends' latencies, of the
    // links known to have it at an end (a router cannot make us write for links it made up).
    const known = this.#allLinks();
    const ours = new Map(
      [...latencies]
        .filter(([id]) => [known.get(id)?.srcRouterId, known.get(id)?.dstRouterId].includes(routerId))
        .map(([id, ns]) => [id, Math.trunc(ns)]),
    );
    if (ours.size > 0)
      void this.#options.shared?.latencies(routerId, ours).catch((error: unknown) => this.#warn(routerId, error));
  }

  /** Whether the router is connected to this process or (as last read) another. */
  isOnline(routerId: string): boolean {
    return this.#options.routers.get(routerId) !== undefined || this.network?.remote.routers.has(routerId) === true;
  }

  /** The stored links and this process's own (which win: they may be newer than the last read). */
  #allLinks(): Map<string, Link> {
    return allLinks(this.network?.remote ?? emptyView, this.table);
  }

  /** `next` once the store has the change (so circuits moved by it do not find the lost link there). */
  #afterShared(write: Promise<void> | undefined, next: () => void): void {
    if (!write) return next();
    void write.catch((error: unknown) => this.#warn(undefined, error)).then(next);
  }

  #sendTo(routerId: string, message: Omit<Message, 'sequence'>): void {
    if (this.network) this.network.sendTo(routerId, message);
    else this.#options.routers.get(routerId)?.channel.send(message);
  }

  #notifyLost(links: readonly Link[]): void {
    for (const listener of this.#lost) {
      try {
        listener(links);
      } catch (error) {
        this.#warn(undefined, error);
      }
    }
  }

  #warn(routerId: string | undefined, error: unknown): void {
    this.#options.logger.warn(
      { routerId, reason: error instanceof Error ? error.message : String(error) },
      'links: unexpected failure',
    );
  }
}

const peerOf = (router: LinkRouter | { routerId: string; version: string; linkListeners: Listener[] }): Peer =>
  'versionInfo' in router
    ? { routerId: router.routerId, version: router.versionInfo.version, linkListeners: router.linkListeners }
    : router;
