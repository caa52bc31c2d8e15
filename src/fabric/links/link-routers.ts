// The routers links work with: the part of fabric/ctrl's router connections that links use, in a file of their own so
// that links.ts and network-sync.ts both import it without importing each other.
import type { ControlChannel } from '../ctrl/router-channel.js';
import type { Listener } from '../messages/gen/ctrl_pb.js';

/** The part of fabric/ctrl's RouterConnection links use. */
export interface LinkRouter {
  routerId: string;
  channel: ControlChannel;
  versionInfo: { version: string };
  linkListeners: Listener[];
}

export interface LinkRouters {
  get(routerId: string): LinkRouter | undefined;
  all(): Iterable<LinkRouter>;
  onConnected(listener: (router: LinkRouter) => void): void;
  onDisconnected(listener: (router: LinkRouter) => void): void;
}
