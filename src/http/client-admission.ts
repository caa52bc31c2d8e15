// Connections per client address (issue 33, item 5). What one address may hold is capped by what it leaves
// unfinished: connections in their TLS handshake or not yet through a first request (pending). A connection that
// completed a request, or went to the router control plane, no longer counts: an office of SDKs behind one NAT,
// reconnecting at once after an outage, is as many clients as it has, not one. Over the pending cap a connection
// waits, unread, for one of its address's pending connections to finish (what a burst needs), and over the waiting
// cap it is closed at once (what a flood gets). Neither the handshake nor the HTTP parser starts on a waiting
// connection: its first bytes stay in its socket's buffer until it is admitted.
import type { Server, Socket } from 'node:net';

export interface AdmissionSettings {
  /** Connections of one address that may be handshaking or before their first completed request at once. */
  maxPendingConnectionsPerClient: number;
  /** Connections of one address that may wait for a pending one to finish; more are closed at once. */
  maxWaitingConnectionsPerClient: number;
  /** How long a connection may wait (its handshake then has the same time again). */
  headersTimeoutMs: number;
}

/** One address's connections that count against its caps; the waiting ones with their deadlines. */
interface ClientConnections {
  pending: number;
  waiting: Map<Socket, Waiting>;
}

/** A waiting connection's deadline, and its error listener (no other is there to take a reset until it is served). */
interface Waiting {
  deadline: NodeJS.Timeout;
  onError: () => void;
}

export interface ClientAdmission {
  /** A connection that completed a request (or was handed elsewhere) stops counting as pending. */
  settled(socket: Socket): void;
  /** Closes the waiting connections (the server is closing: none will be served). */
  closeWaiting(): void;
}

/**
 * Takes over the server's 'connection' listeners (TLS's, which starts the handshake, or plain HTTP's) and calls them
 * for each connection once it is admitted.
 */
export function admitByClient(server: Server, settings: AdmissionSettings): ClientAdmission {
  const serve = server.listeners('connection');
  server.removeAllListeners('connection');
  const clients = new Map<string, ClientConnections>();
  /** Admitted connections still pending, by the TCP connection (address and port) each is, with the address. */
  const pending = new Map<string, string>();

  const forget = (address: string, client: ClientConnections): void => {
    if (client.pending === 0 && client.waiting.size === 0) clients.delete(address);
  };

  const admit = (socket: Socket, address: string, client: ClientConnections): void => {
    const key = connectionKey(socket);
    // A connection already gone has no key of its own; it would take another's place.
    if (socket.destroyed || pending.has(key)) {
      socket.destroy();
      return forget(address, client);
    }
    client.pending++;
    pending.set(key, address);
    socket.once('close', () => settle(key));
    for (const listener of serve) Reflect.apply(listener, server, [socket]);
  };

  const settle = (key: string): void => {
    const address = pending.get(key);
    if (address === undefined) return;
    pending.delete(key);
    const client = clients.get(address);
    if (!client) return;
    client.pending--;
    for (const [next, waiting] of client.waiting) {
      if (client.pending >= settings.maxPendingConnectionsPerClient) break;
      client.waiting.delete(next);
      clearTimeout(waiting.deadline);
      next.off('error', waiting.onError);
      if (!next.destroyed) admit(next, address, client);
    }
    forget(address, client);
  };

  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    if (address === undefined) return void socket.destroy();
    let client = clients.get(address);
    if (!client) clients.set(address, (client = { pending: 0, waiting: new Map() }));
    if (client.pending < settings.maxPendingConnectionsPerClient) return admit(socket, address, client);
    if (client.waiting.size >= settings.maxWaitingConnectionsPerClient) return void socket.destroy();
    const waiter = client;
    const waiting: Waiting = {
      deadline: setTimeout(() => socket.destroy(), settings.headersTimeoutMs),
      onError: () => socket.destroy(),
    };
    socket.on('error', waiting.onError);
    waiter.waiting.set(socket, waiting);
    socket.once('close', () => {
      // Admitted by then, or closed while waiting (its deadline, a reset).
      if (waiter.waiting.get(socket) !== waiting) return;
      clearTimeout(waiting.deadline);
      waiter.waiting.delete(socket);
      forget(address, waiter);
    });
  });

  return {
    settled: (socket) => settle(connectionKey(socket)),
    closeWaiting() {
      for (const client of clients.values()) for (const socket of client.waiting.keys()) socket.destroy();
    },
  };
}

/**
 * Open TCP connections to one listener differ by their remote address and port; a TLS socket and the socket it wraps
 * share them, so a request's socket finds the connection admitted.
 */
function connectionKey(socket: Socket): string {
  return `${socket.remoteAddress ?? ''}|${socket.remotePort ?? ''}`;
}
