// What routers are told about each other (upstream v1.1.8 controller/network/router_messaging.go): PeerStateChanges
// (1050). A router that connects hears of every other connected router (Healthy, its version and link listeners) and
// they hear of it; when it goes, they hear it is Unhealthy (Removed when it was deleted). The routers dial links to
// peers whose listener groups match their dialers' (router/link/link_events.go); the controller never dials.
import { create, toBinary } from '@bufbuild/protobuf';
import type { Message } from '../channel/message.js';
import {
  ContentType,
  FaultSchema,
  FaultSubject,
  PeerState,
  PeerStateChangeSchema,
  PeerStateChangesSchema,
  type Listener,
  type PeerStateChange,
} from '../messages/gen/ctrl_pb.js';

export interface Peer {
  routerId: string;
  version: string;
  linkListeners: readonly Listener[];
}

export const healthy = (peer: Peer): PeerStateChange =>
  create(PeerStateChangeSchema, {
    id: peer.routerId,
    version: peer.version,
    state: PeerState.Healthy,
    listeners: [...peer.linkListeners],
  });

export const gone = (routerId: string, deleted: boolean): PeerStateChange =>
  create(PeerStateChangeSchema, { id: routerId, state: deleted ? PeerState.Removed : PeerState.Unhealthy });

export function peerStateChanges(changes: PeerStateChange[]): Omit<Message, 'sequence'> {
  return {
    contentType: ContentType.PeerStateChangeRequestType,
    headers: new Map(),
    body: toBinary(PeerStateChangesSchema, create(PeerStateChangesSchema, { changes })),
  };
}

/**
 * upstream Router.SupportsRouterLinkMgmt: routers from 0.32.1 on dial their own links and take peer states; older ones
 * (which would need the legacy Dial 1002) are not told. An unparseable version counts as supporting, and so does the
 * development build v0.0.0, as upstream's VersionInfo.HasMinimumVersion.
 */
export function supportsLinkManagement(version: string): boolean {
  const match = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version);
  if (!match) return true;
  const [major, minor, patch] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (major !== 0) return true;
  if (minor === 0 && patch === 0) return true;
  return minor > 32 || (minor === 32 && patch >= 1);
}

/** A link's end is told its link is gone (Fault LinkFault), as upstream relays a fault or an operator's delete. */
export function linkFaultMessage(linkId: string, iteration: number): Omit<Message, 'sequence'> {
  return {
    contentType: ContentType.FaultType,
    headers: new Map(),
    body: toBinary(FaultSchema, create(FaultSchema, { subject: FaultSubject.LinkFault, id: linkId, iteration })),
  };
}

/** Where peer states go: a router's control channel. */
export interface PeerStateReceiver {
  send(message: Omit<Message, 'sequence'>): void;
}

/** How long peer states gather before they go: a storm's connects spread over many turns of the event loop. */
export const PEER_STATE_WINDOW_MS = 100;

/**
 * upstream's RouterMessaging coalescing: the states queued for a router within a short window (0: one turn of the
 * event loop) go as one PeerStateChanges, the latest per peer. Routers connecting at once (a restart of the
 * network) would otherwise send every connected router one message per newcomer: half a million messages for a
 * thousand routers.
 */
export class PeerStateOutbox {
  #pending = new Map<PeerStateReceiver, Map<string, PeerStateChange>>();
  #scheduled = false;

  constructor(private readonly windowMs = PEER_STATE_WINDOW_MS) {}

  queue(to: PeerStateReceiver, changes: readonly PeerStateChange[]): void {
    if (changes.length === 0) return;
    let pending = this.#pending.get(to);
    if (!pending) this.#pending.set(to, (pending = new Map<string, PeerStateChange>()));
    // Map order is first insertion: a peer that changed again keeps its place with its latest state.
    for (const change of changes) pending.set(change.id, change);
    if (this.#scheduled) return;
    this.#scheduled = true;
    if (this.windowMs === 0) setImmediate(() => this.flush());
    else setTimeout(() => this.flush(), this.windowMs).unref();
  }

  /** Sends what is queued now (a channel closed meanwhile drops its message). */
  flush(): void {
    this.#scheduled = false;
    const pending = this.#pending;
    this.#pending = new Map();
    for (const [to, changes] of pending) to.send(peerStateChanges([...changes.values()]));
  }
}
