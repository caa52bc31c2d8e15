// The management channel's endpoint: `GET /fabric/v1/ws-api` upgraded to a websocket that carries channel v2 (upstream
// api_impl/management-api.go handleWebSocket, openziti/channel websockets/ws_underlay.go): each binary websocket
// message is one frame, there is no hello and no heartbeat (upstream's management bind configures none). Admitted as
// upstream's fabric wrapper (server/fabric-api.go WrapWsHandler) admits it: the `zt-session` header names an API
// session of an admin, else 401 with the error envelope. The frames are read by the same channel code as a router's,
// over the websocket as a duplex stream (ws's createWebSocketStream), and served by the management table.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, createWebSocketStream, type WebSocket } from 'ws';
import { Channel } from '../channel/channel.js';
import { FrameReader, type FrameLimits } from '../channel/frame-reader.js';
import type { FabricLogger } from '../ctrl/router-channel.js';
import type { MgmtMessages } from './mgmt-messages.js';

export const MGMT_PATH = '/fabric/v1/ws-api';

/** A CLI's requests are small; a stream's events go the other way. */
const LIMITS: FrameLimits = { maxHeaderBytes: 64 * 1024, maxBodyBytes: 1024 * 1024 };
/** A CLI that stops reading its event stream is closed past this much unread. */
const MAX_WRITE_BUFFER_BYTES = 16 * 1024 * 1024;
/** Concurrent management channels; past this an upgrade is answered 503. */
const MAX_CHANNELS = 256;

/** Who may open the channel: an admin's API session, or the refusal (status and JSON body) to answer. */
export type MgmtAdmission = { admitted: true } | { admitted: false; status: number; body: string };

export interface MgmtSocketOptions {
  admit(request: IncomingMessage): Promise<MgmtAdmission>;
  messages: MgmtMessages;
  logger: FabricLogger;
}

export class MgmtSocket {
  readonly #options: MgmtSocketOptions;
  readonly #server = new WebSocketServer({ noServer: true, maxPayload: LIMITS.maxHeaderBytes + LIMITS.maxBodyBytes });
  readonly #channels = new Set<Channel>();
  #count = 0;

  constructor(options: MgmtSocketOptions) {
    this.#options = options;
  }

  /** The HTTP server's 'upgrade' listener: the management path is taken, any other upgrade is answered 404. */
  upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', (error) => this.#options.logger.debug({ err: error }, 'mgmt upgrade connection failed'));
    const path = (request.url ?? '').split('?')[0];
    if (path !== MGMT_PATH) return refuse(socket, 404, '');
    if (this.#channels.size >= MAX_CHANNELS) return refuse(socket, 503, '');
    this.#options.admit(request).then(
      (admission) => {
        if (!admission.admitted) return refuse(socket, admission.status, admission.body);
        this.#server.handleUpgrade(request, socket, head, (ws) => this.#open(ws, request));
      },
      (error: unknown) => {
        this.#options.logger.error({ err: error }, 'could not admit a management channel');
        refuse(socket, 500, '');
      },
    );
  }

  /** Closes every management channel (at shutdown: upgraded sockets are no longer the HTTP server's). */
  close(): void {
    for (const channel of this.#channels) channel.close('controller stopping');
  }

  #open(ws: WebSocket, request: IncomingMessage): void {
    const label = `mgmt.${++this.#count}`;
    const { logger, messages } = this.#options;
    // Upstream's underlay refuses anything but binary messages.
    ws.on('message', (_data, isBinary) => {
      if (!isBinary) ws.close(1003, 'expected binary message');
    });
    const stream = createWebSocketStream(ws);
    const channel = new Channel(stream, new FrameReader(LIMITS), {
      label,
      logger,
      heartbeat: undefined,
      maxWriteBufferBytes: MAX_WRITE_BUFFER_BYTES,
    });
    // The stream only ends when the websocket closes (it emits no 'close' of its own): the channel closes with it.
    ws.once('close', (code, reason) => channel.close(`websocket closed (${code} ${reason.toString()})`.trim()));
    this.#channels.add(channel);
    void channel.closed.then(() => {
      this.#channels.delete(channel);
      logger.info({ channel: label, reason: channel.closeReason }, 'management channel closed');
    });
    messages.bind(channel, label);
    logger.info({ channel: label, peer: request.socket.remoteAddress }, 'management channel opened');
    channel.start();
  }
}

function refuse(socket: Duplex, status: number, body: string): void {
  const reason = { 401: 'Unauthorized', 404: 'Not Found', 500: 'Internal Server Error', 503: 'Service Unavailable' };
  const text = reason[status as keyof typeof reason] ?? 'Error';
  const headers = [`HTTP/1.1 ${status} ${text}`, 'Connection: close', `Content-Length: ${Buffer.byteLength(body)}`];
  if (body) headers.push('Content-Type: application/json');
  socket.end(`${headers.join('\r\n')}\r\n\r\n${body}`);
}
