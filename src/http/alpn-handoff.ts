// The API port serves the router control plane too, as upstream's shared listener does (transport/v2/tls/listener.go):
// a TLS connection that negotiated ALPN `ziti-ctrl` goes to the control plane before the HTTP server sees it. HTTPS
// clients offer `http/1.1` (or `h2` and `http/1.1`, or nothing) and get `http/1.1` or no ALPN, exactly as before.
import type { EventEmitter } from 'node:events';
import type { TLSSocket } from 'node:tls';

/** The ALPN list of an API server that also serves `protocol`: HTTP first, so clients offering both get HTTP. */
export const alpnProtocols = (protocol: string): string[] => ['http/1.1', protocol];

/**
 * Routes connections that negotiated `protocol` to `accept`; every other one to the HTTP server's own listeners. The
 * server is an HTTPS one (only its 'secureConnection' event is touched, so any emitter type will do).
 */
export function handOffAlpn(server: EventEmitter, protocol: string, accept: (socket: TLSSocket) => void): void {
  const httpListeners = server.listeners('secureConnection');
  server.removeAllListeners('secureConnection');
  server.on('secureConnection', (socket: TLSSocket) => {
    if (socket.alpnProtocol === protocol) accept(socket);
    else for (const listener of httpListeners) Reflect.apply(listener, server, [socket]);
  });
}
