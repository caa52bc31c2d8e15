// The routers and the logger links work with: the part of fabric/ctrl's router connections and of the logger that
// links use, in a file of their own so that links.ts and network-sync.ts both import them without importing each other.
import type { Message } from '../channel/message.js';
import type { Listener } from '../messages/gen/ctrl_pb.js';

/** The part of a router channel links use (fabric/channel/channel.ts satisfies it). */
export interface LinkChannel {
  send(message: Omit<Message, 'sequence'>): void;
  handle(contentType: number, handler: (message: Message) => void | Promise<void>): void;
}

/** The part of fabric/ctrl's RouterConnection links use. */
export interface LinkRouter {
  routerId: string;
  channel: LinkChannel;
  versionInfo: { version: string };
  linkListeners: Listener[];
}

export interface LinkRouters {
  get(routerId: string): LinkRouter | undefined;
  all(): Iterable<LinkRouter>;
  onConnected(listener: (router: LinkRouter) => void): void;
  onDisconnected(listener: (router: LinkRouter) => void): void;
}

export interface LinksLogger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}
