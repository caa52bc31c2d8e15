// A process's Links kept in step with the other processes' (docs/reference/router-control-plane-links.md §5.8):
// once a second it reads the shared network and tells this process's routers of routers that came or went elsewhere
// (PeerStateChanges), forgets a link of its own that another process faulted, and reports links that stopped
// carrying traffic (a router at one end gone anywhere, a link faulted anywhere) so their circuits move.
import type { Message } from '../channel/message.js';
import { isUsable, type Link, type LinkTable } from './link-model.js';
import type { LinkRouters } from './link-routers.js';
import type { FabricLogger } from '../ctrl/router-channel.js';
import { gone, healthy, linkFaultMessage, peerStateChanges, supportsLinkManagement } from './peer-states.js';
import {
  allLinks,
  carryingLinks,
  emptyView,
  peerChanges,
  type RemoteRouters,
  type SharedNetwork,
  type SharedView,
} from './shared-network.js';

/** What the sync needs of its Links. */
export interface SyncTarget {
  routers: LinkRouters;
  table: LinkTable;
  routerExists(routerId: string): Promise<boolean>;
  notifyLost(links: readonly Link[]): void;
  warn(routerId: string | undefined, error: unknown): void;
  logger: FabricLogger;
}

export class NetworkSync {
  readonly #shared: SharedNetwork;
  readonly #target: SyncTarget;
  /** The last read of the shared network (a snapshot or a sync). */
  #remote: SharedView = emptyView;
  /** The routers elsewhere as this process's routers were last told of them. */
  #told: RemoteRouters = new Map();
  /** The links that carried traffic at the last sync. */
  #carrying = new Map<string, Link>();
  #timer: NodeJS.Timeout | undefined;
  #syncing = false;

  constructor(shared: SharedNetwork, target: SyncTarget) {
    this.#shared = shared;
    this.#target = target;
  }

  get remote(): SharedView {
    return this.#remote;
  }

  async refresh(): Promise<SharedView> {
    return (this.#remote = await this.#shared.read());
  }

  start(intervalMs = 1000): void {
    this.#timer ??= setInterval(() => void this.sync(), intervalMs).unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  async sync(): Promise<void> {
    const { routers, table } = this.#target;
    // A process holding no router has nobody to tell and no circuit to move (its circuits came from its routers).
    if (this.#syncing || routers.all()[Symbol.iterator]().next().done === true) return;
    this.#syncing = true;
    try {
      const view = await this.refresh();
      const { came, went } = peerChanges(this.#told, view.routers);
      this.#told = view.routers;
      const changes = came.map((router) => healthy(router));
      for (const id of went) if (!routers.get(id)) changes.push(gone(id, !(await this.#target.routerExists(id))));
      if (changes.length > 0)
        for (const router of routers.all())
          if (supportsLinkManagement(router.versionInfo.version)) router.channel.send(peerStateChanges(changes));
      // A link of ours the store no longer has (it had it: the link carried) was faulted through another process.
      for (const link of [...table.all()])
        if (!view.links.has(link.id) && this.#carrying.has(link.id)) table.remove(link.id);
      const isOnline = (id: string) => routers.get(id) !== undefined || view.routers.has(id);
      const carrying = carryingLinks(allLinks(view, table).values(), isOnline, isUsable);
      const lost = [...this.#carrying.values()].filter((link) => !carrying.has(link.id));
      this.#carrying = carrying;
      if (lost.length > 0) this.#target.notifyLost(lost);
    } catch (error) {
      this.#target.warn(undefined, error);
    } finally {
      this.#syncing = false;
    }
  }

  /** A message to a router wherever it is held (a link fault relayed to the link's other end). */
  sendTo(routerId: string, message: Omit<Message, 'sequence'>): void {
    const local = this.#target.routers.get(routerId);
    if (local) local.channel.send(message);
    else
      void this.#shared.messenger.send(routerId, message).catch((error: unknown) => this.#target.warn(routerId, error));
  }

  /**
   * A fault (or an operator's delete) of a link this process does not hold: the store's copy goes, its ends are told
   * (but the router that reported the fault), its circuits move. False when the store has no such link (or a newer one).
   */
  async linkGone(routerId: string | undefined, linkId: string, iteration: number | undefined): Promise<boolean> {
    const link = (await this.refresh()).links.get(linkId);
    if (!link || (iteration !== undefined && iteration !== 0 && link.iteration !== 0 && iteration < link.iteration))
      return false;
    await this.#shared.linksGone([linkId]);
    this.#target.logger.info({ routerId, linkId }, 'link fault');
    for (const end of [link.srcRouterId, link.dstRouterId])
      if (end !== routerId) this.sendTo(end, linkFaultMessage(link.id, iteration ?? link.iteration));
    this.#target.notifyLost([link]);
    return true;
  }
}
