// A router's side of the edge sync without sockets: records what the controller sends, answers the ServerHello with
// a ClientHello as a v1.1.8 router builds it (router/handler_edge_ctrl/hello.go), and lets a test send the router's
// own messages (heartbeats, resync requests) to the router-message table bound on it.
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import {
  ApiSessionAddedSchema,
  ApiSessionRemovedSchema,
  ApiSessionUpdatedSchema,
  ClientHelloSchema,
  ContentType,
  SessionRemovedSchema,
} from '../../src/fabric/messages/gen/edge_ctrl_pb.js';
import type { OutgoingMessage } from '../../src/fabric/edge-sync/edge-messages.js';
import type { SyncConnection } from '../../src/fabric/edge-sync/router-sync.js';
import type { Message } from '../../src/fabric/channel/message.js';

/** The ClientHello of a router with one edge listener advertised at `tls://<hostname>:<port>`. */
export function clientHelloBody(hostname = '127.0.0.1', port = 3022): Uint8Array {
  const address = { value: `tls:0.0.0.0:${port}`, protocol: 'tls', hostname: '0.0.0.0', port };
  const advertise = { value: `tls:${hostname}:${port}`, protocol: 'tls', hostname, port };
  return toBinary(
    ClientHelloSchema,
    create(ClientHelloSchema, {
      version: 'v1.1.8',
      hostname,
      protocols: ['tls'],
      protocolPorts: [String(port)],
      data: {},
      listeners: [{ address, advertise }],
    }),
  );
}

export class FakeRouterChannel {
  readonly sent: OutgoingMessage[] = [];
  readonly #handlers = new Map<number, (message: Message) => void | Promise<void>>();
  #close!: () => void;
  readonly closed = new Promise<void>((resolve) => (this.#close = resolve));
  isClosed = false;
  /** How the router answers hellos: a ClientHello body, or an error (it never answered, as a timeout reports). */
  answerHello: () => Uint8Array | Promise<Uint8Array> = () => clientHelloBody();

  /** While paused the router reads nothing: drained() waits, as a socket past its high-water mark, until it reads. */
  #paused = false;
  readonly #draining: (() => void)[] = [];

  send(message: OutgoingMessage): void {
    this.sent.push(message);
  }

  drained(): Promise<void> {
    if (!this.#paused || this.isClosed) return Promise.resolve();
    return new Promise((resolve) => this.#draining.push(resolve));
  }

  pauseReading(): void {
    this.#paused = true;
  }

  resumeReading(): void {
    this.#paused = false;
    for (const resolve of this.#draining.splice(0)) resolve();
  }

  request(message: OutgoingMessage): Promise<Message> {
    this.sent.push(message);
    return Promise.resolve()
      .then(() => this.answerHello())
      .then((body) => ({ contentType: ContentType.ClientHelloType, sequence: 1, headers: new Map(), body }));
  }

  handle(contentType: number, handler: (message: Message) => void | Promise<void>): void {
    this.#handlers.set(contentType, handler);
  }

  handleOthers(): void {}

  reply(_to: Message, message: OutgoingMessage): void {
    this.sent.push(message);
  }

  /** The router sends `body` as `contentType`. */
  async receive(contentType: number, body: Uint8Array): Promise<void> {
    await this.#handlers.get(contentType)?.({ contentType, sequence: 1, headers: new Map(), body });
  }

  close(): void {
    this.isClosed = true;
    for (const resolve of this.#draining.splice(0)) resolve();
    this.#close();
  }

  /** The messages sent since the last call, decoded. */
  take(): DecodedMessage[] {
    return this.sent.splice(0).map(decode);
  }
}

export type DecodedMessage =
  | { type: 'serverHello'; headers: Map<number, Uint8Array> }
  | { type: 'added'; isFullState: boolean; state: unknown; tokens: string[]; fingerprints: Record<string, string[]> }
  | { type: 'updated'; stateHeader: Uint8Array | undefined; tokens: string[]; fingerprints: Record<string, string[]> }
  | { type: 'removed' | 'sessionRemoved'; tokens: string[]; ids: string[] };

function decode(message: OutgoingMessage): DecodedMessage {
  const text = (key: number) => new TextDecoder().decode(message.headers.get(key));
  switch (message.contentType as ContentType) {
    case ContentType.ServerHelloType:
      return { type: 'serverHello', headers: message.headers };
    case ContentType.ApiSessionAddedType: {
      const added = fromBinary(ApiSessionAddedSchema, message.body);
      if (text(1013) !== 'instant') throw new Error('an ApiSessionAdded without the instant strategy header');
      return {
        type: 'added',
        isFullState: added.isFullState,
        state: JSON.parse(text(1014)),
        tokens: added.apiSessions.map((session) => session.token),
        fingerprints: Object.fromEntries(added.apiSessions.map((session) => [session.token, session.certFingerprints])),
      };
    }
    case ContentType.ApiSessionUpdatedType: {
      const updated = fromBinary(ApiSessionUpdatedSchema, message.body);
      return {
        type: 'updated',
        stateHeader: message.headers.get(1014),
        tokens: updated.apiSessions.map((session) => session.token),
        fingerprints: Object.fromEntries(
          updated.apiSessions.map((session) => [session.token, session.certFingerprints]),
        ),
      };
    }
    case ContentType.ApiSessionRemovedType: {
      const removed = fromBinary(ApiSessionRemovedSchema, message.body);
      return { type: 'removed', tokens: removed.tokens, ids: removed.ids };
    }
    case ContentType.SessionRemovedType: {
      const removed = fromBinary(SessionRemovedSchema, message.body);
      return { type: 'sessionRemoved', tokens: removed.tokens, ids: removed.ids };
    }
    default:
      throw new Error(`unexpected content type ${message.contentType}`);
  }
}

/** The process's router connections, driven by the test. */
export class FakeConnections {
  /** Binds the router's messages on each new channel (the controller's table, test/support/router-messages.ts). */
  serve: ((routerId: string, channel: FakeRouterChannel) => void) | undefined;
  readonly #connected: Array<(connection: SyncConnection) => void> = [];
  readonly #disconnected: Array<(connection: SyncConnection) => void> = [];

  onConnected(listener: (connection: SyncConnection) => void): void {
    this.#connected.push(listener);
  }

  onDisconnected(listener: (connection: SyncConnection) => void): void {
    this.#disconnected.push(listener);
  }

  /** `prepare` sets the fake up (how it answers hellos) before the controller hears of it. */
  connect(
    routerId: string,
    isEdge = true,
    prepare?: (channel: FakeRouterChannel) => void,
  ): { connection: SyncConnection; channel: FakeRouterChannel } {
    const channel = new FakeRouterChannel();
    prepare?.(channel);
    this.serve?.(routerId, channel);
    const connection = { routerId, isEdge, channel };
    for (const listener of this.#connected) listener(connection);
    return { connection, channel };
  }

  disconnect(connection: SyncConnection & { channel: FakeRouterChannel }): void {
    connection.channel.close();
    for (const listener of this.#disconnected) listener(connection);
  }
}
