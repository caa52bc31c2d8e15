// Connection limits: header, request, keep-alive and idle timeouts and connection caps, so a client that trickles,
// idles or opens connections by the thousand never holds resources others need.
import type { FastifyInstance, FastifyRequest, FastifyServerOptions } from 'fastify';
import type { Socket } from 'node:net';
import type { Settings } from '../settings/settings.schema.js';
import { ApiError } from '../errors/api-error.js';
import { errorBody } from './error-response.js';
import { admitByClient, type ClientAdmission } from './client-admission.js';

export type ConnectionSettings = Pick<
  Settings,
  | 'headersTimeoutMs'
  | 'requestTimeoutMs'
  | 'keepAliveTimeoutMs'
  | 'idleTimeoutMs'
  | 'maxConnections'
  | 'maxPendingConnectionsPerClient'
  | 'maxWaitingConnectionsPerClient'
>;

/** Node checks the header and request timeouts on a timer: often enough that neither overruns by much. */
function checkingInterval(settings: ConnectionSettings): number {
  return Math.min(30_000, Math.max(50, Math.floor(Math.min(settings.headersTimeoutMs, settings.requestTimeoutMs) / 4)));
}

/**
 * The timeouts and caps of one app's server. Fastify takes some as options and passes the TLS ones to
 * https.createServer; `install` adds the rest once the server exists.
 */
export function connectionLimits(settings: ConnectionSettings) {
  /** Sockets with a request in progress (its headers in, its reply not yet sent), with the request's id. */
  const receiving = new WeakMap<Socket, string>();
  /** Set by `install`, once the server exists; requests come after. */
  let admission: ClientAdmission | undefined;

  const onClientError = (error: Error & { code?: string }, socket: Socket): void => {
    const requestId = receiving.get(socket);
    receiving.delete(socket);
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    // What upstream's Go server does at its read deadline: mid-body, 503 TIMEOUT in the error envelope; before the
    // headers are in (an idle or trickling connection), it just closes. Malformed requests get Go's plain answers.
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      if (requestId === undefined) socket.destroy();
      else
        endWith(socket, 503, 'Service Unavailable', 'application/json', errorBody(new ApiError('TIMEOUT'), requestId));
    } else if (error.code === 'HPE_HEADER_OVERFLOW') {
      endWith(
        socket,
        431,
        'Request Header Fields Too Large',
        'text/plain; charset=utf-8',
        '431 Request Header Fields Too Large',
      );
    } else {
      endWith(socket, 400, 'Bad Request', 'text/plain; charset=utf-8', '400 Bad Request');
    }
  };

  return {
    fastifyOptions: {
      keepAliveTimeout: settings.keepAliveTimeoutMs,
      requestTimeout: settings.requestTimeoutMs,
      connectionTimeout: settings.idleTimeoutMs,
      clientErrorHandler: onClientError,
    } satisfies FastifyServerOptions,
    /** Options of https.createServer that Fastify has no name for. */
    tlsServerOptions: {
      headersTimeout: settings.headersTimeoutMs,
      connectionsCheckingInterval: checkingInterval(settings),
      // A TLS handshake is part of getting the request's headers.
      handshakeTimeout: settings.headersTimeoutMs,
    },
    install(app: FastifyInstance): void {
      app.server.maxConnections = settings.maxConnections;
      const admitted = admitByClient(app.server, settings);
      admission = admitted;
      // The server's close waits for every open connection, waiting ones included.
      app.addHook('preClose', (done) => {
        admitted.closeWaiting();
        done();
      });
      // Node reports a handshake that timed out or failed, but leaves the socket open.
      app.server.on('tlsClientError', (_error: Error, socket: Socket) => socket.destroy());
    },
    /** Called by the request hooks (request-hooks.ts) as a request starts and as its reply has gone. */
    requests: {
      started(request: FastifyRequest): void {
        receiving.set(request.raw.socket, request.id);
      },
      ended(request: FastifyRequest): void {
        receiving.delete(request.raw.socket);
        admission?.settled(request.raw.socket);
      },
    } satisfies RequestTracker,
    /** A connection handed to another server (the control plane) is that server's to bound from then on. */
    handedOff(socket: Socket): void {
      admission?.settled(socket);
    },
  };
}

/** Told of every request's start and end; each hook Fastify runs per request costs more than what these do. */
export interface RequestTracker {
  started(request: FastifyRequest): void;
  ended(request: FastifyRequest): void;
}

function endWith(socket: Socket, status: number, reason: string, contentType: string, body: string): void {
  const head = `HTTP/1.1 ${status} ${reason}\r\nContent-Type: ${contentType}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`;
  socket.end(`${head}${body}`, () => socket.destroy());
}
