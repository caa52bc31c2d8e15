// The router control channels this process holds (the seam the edge sync, terminators, circuits and links build on).
// Presence in the store says which instance holds which router; this registry is only this process's own share.
import type { Channel } from '../channel/channel.js';
import type { Listener } from '../messages/gen/ctrl_pb.js';

export interface RouterConnection {
  routerId: string;
  /** Edge routers get the edge hello; transit routers don't. */
  isEdge: boolean;
  channel: Channel;
  /** When this process accepted the channel (ms since the epoch). */
  connectedAt: number;
  /** The router's `version|revision|buildDate|os|arch` hello header, parsed. */
  versionInfo: VersionInfo;
  /** The hello's link listeners (header 10, ctrl_pb.Listeners), told to the other routers so they dial links. */
  linkListeners: Listener[];
}

export interface VersionInfo {
  version: string;
  revision: string;
  buildDate: string;
  os: string;
  arch: string;
}

export interface RouterConnections {
  get(routerId: string): RouterConnection | undefined;
  all(): Iterable<RouterConnection>;
  /** Called after the hello result was sent, before the channel reads its first message. */
  onConnected(listener: (connection: RouterConnection) => void): void;
  onDisconnected(listener: (connection: RouterConnection) => void): void;
}

export class RouterRegistry implements RouterConnections {
  readonly #connections = new Map<string, RouterConnection>();
  readonly #connected: Array<(connection: RouterConnection) => void> = [];
  readonly #disconnected: Array<(connection: RouterConnection) => void> = [];
  readonly #onListenerError: (error: unknown) => void;

  constructor(onListenerError: (error: unknown) => void) {
    this.#onListenerError = onListenerError;
  }

  get(routerId: string): RouterConnection | undefined {
    return this.#connections.get(routerId);
  }

  all(): Iterable<RouterConnection> {
    return this.#connections.values();
  }

  get size(): number {
    return this.#connections.size;
  }

  onConnected(listener: (connection: RouterConnection) => void): void {
    this.#connected.push(listener);
  }

  onDisconnected(listener: (connection: RouterConnection) => void): void {
    this.#disconnected.push(listener);
  }

  add(connection: RouterConnection): void {
    this.#connections.set(connection.routerId, connection);
    this.#notify(this.#connected, connection);
  }

  /**
   * Forgets a closed connection, unless a newer one of the same router replaced it already; true when it was the
   * router's current one (its router is now gone from this process).
   */
  remove(connection: RouterConnection): boolean {
    if (this.#connections.get(connection.routerId) !== connection) return false;
    this.#connections.delete(connection.routerId);
    this.#notify(this.#disconnected, connection);
    return true;
  }

  #notify(listeners: ReadonlyArray<(connection: RouterConnection) => void>, connection: RouterConnection): void {
    for (const listener of listeners) {
      try {
        listener(connection);
      } catch (error) {
        this.#onListenerError(error);
      }
    }
  }
}
