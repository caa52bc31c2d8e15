// The links routers report (upstream v1.1.8 controller/model/link_manager.go and link_model.go): kept by id, each with
// its source (the router that dialled and reported it), destination, iteration, state, static cost and the latencies
// both ends measure. A reported link is Connected at once (routers report only established links); until latencies
// arrive it carries upstream's initial 65 s each way, so a fresh link costs 130001 and measured ones win.
import type { LinkState, LinkSummary } from '../network-views.js';

/** upstream DefaultOptionsInitialLinkLatency (65 s) in ns. */
export const INITIAL_LINK_LATENCY_NS = 65_000_000_000;

export interface Link {
  id: string;
  iteration: number;
  srcRouterId: string;
  dstRouterId: string;
  protocol: string;
  dialAddress: string;
  state: LinkState;
  down: boolean;
  staticCost: number;
  /** ns */
  srcLatency: number;
  dstLatency: number;
}

export interface ReportedLink {
  id: string;
  destRouterId: string;
  linkProtocol: string;
  dialAddress: string;
  iteration: number;
}

/** upstream Link.RecalculateCost: static cost plus both latencies in whole milliseconds. */
export const linkCost = (link: Link): number =>
  link.staticCost + Math.trunc(link.srcLatency / 1e6) + Math.trunc(link.dstLatency / 1e6);
export const isUsable = (link: Link): boolean => !link.down && link.state === 'Connected';

export const linkSummary = (link: Link): LinkSummary => ({
  id: link.id,
  protocol: link.protocol,
  dialAddress: link.dialAddress,
  sourceRouterId: link.srcRouterId,
  destRouterId: link.dstRouterId,
  state: link.state,
  down: link.down,
  staticCost: link.staticCost,
  sourceLatency: link.srcLatency,
  destLatency: link.dstLatency,
  cost: linkCost(link),
  iteration: link.iteration,
});

export class LinkTable {
  readonly #links = new Map<string, Link>();

  constructor(readonly maxLinks = 100_000) {}

  get(id: string): Link | undefined {
    return this.#links.get(id);
  }

  all(): IterableIterator<Link> {
    return this.#links.values();
  }

  get size(): number {
    return this.#links.size;
  }

  /**
   * A link its source router reported (RouterLinks 1035, RouterReportedLink): known when we hold the same or a newer
   * iteration, otherwise (re)placed. Undefined when the table is full (a hostile router cannot grow it unbounded).
   */
  reported(srcRouterId: string, reported: ReportedLink): { link: Link; created: boolean } | undefined {
    const existing = this.#links.get(reported.id);
    if (existing && existing.iteration >= reported.iteration) return { link: existing, created: false };
    if (!existing && this.#links.size >= this.maxLinks) return undefined;
    const link: Link = {
      id: reported.id,
      iteration: reported.iteration,
      srcRouterId,
      dstRouterId: reported.destRouterId,
      protocol: reported.linkProtocol,
      dialAddress: reported.dialAddress,
      state: 'Connected',
      down: false,
      staticCost: 1,
      srcLatency: INITIAL_LINK_LATENCY_NS,
      dstLatency: INITIAL_LINK_LATENCY_NS,
    };
    this.#links.set(link.id, link);
    return { link, created: true };
  }

  /** A fault for the link (LinkFault / LinkDuplicate): the link goes unless the fault is about an older iteration. */
  faulted(id: string, iteration: number, duplicate: boolean): Link | undefined {
    const link = this.#links.get(id);
    if (!link) return undefined;
    if (iteration !== 0 && link.iteration !== 0 && iteration < link.iteration) return undefined;
    link.state = duplicate ? 'Duplicate' : 'Failed';
    this.#links.delete(id);
    return link;
  }

  /** Removes a link (an operator's DELETE). */
  remove(id: string): Link | undefined {
    const link = this.#links.get(id);
    this.#links.delete(id);
    return link;
  }

  /** A router's channel closed: links it dialled go; links to it stay, unusable while it is away (DisconnectRouter). */
  sourceGone(routerId: string): Link[] {
    const removed: Link[] = [];
    for (const link of this.#links.values()) {
      if (link.srcRouterId !== routerId) continue;
      this.#links.delete(link.id);
      removed.push(link);
    }
    return removed;
  }

  /** Links with the router at either end. */
  linksOf(routerId: string): Link[] {
    return [...this.#links.values()].filter((link) => link.srcRouterId === routerId || link.dstRouterId === routerId);
  }

  /** A router's measured latency of a link (metrics `link.<id>.latency` + `queue_time`, ns) for its end of it. */
  setLatency(routerId: string, linkId: string, latencyNs: number): boolean {
    const link = this.#links.get(linkId);
    if (!link || !Number.isFinite(latencyNs) || latencyNs < 0) return false;
    if (link.srcRouterId === routerId) link.srcLatency = Math.trunc(latencyNs);
    else if (link.dstRouterId === routerId) link.dstLatency = Math.trunc(latencyNs);
    else return false;
    return true;
  }
}
