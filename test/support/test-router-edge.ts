// The edge side of the test router, as a v1.1.8 edge router without HA behaves (router/handler_edge_ctrl/hello.go,
// router/state/apiSession*.go): it answers the ServerHello with a ClientHello for its edge listener, keeps the API
// sessions it is told of (a full state is applied once every chunk up to the last is in, and drops what it does not
// name), and can send API-session heartbeats and resync requests.
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import type { Channel } from '../../src/fabric/channel/channel.js';
import type { Message } from '../../src/fabric/channel/message.js';
import {
  ApiSessionAddedSchema,
  ApiSessionHeartbeatSchema,
  ApiSessionRemovedSchema,
  ApiSessionUpdatedSchema,
  ContentType,
  RequestClientReSyncSchema,
  SessionRemovedSchema,
  type ApiSession,
} from '../../src/fabric/messages/gen/edge_ctrl_pb.js';
import { clientHelloBody } from './fake-router-channel.js';

export interface EdgeListener {
  hostname: string;
  port: number;
}

interface Chunk {
  sessions: ApiSession[];
  isLast: boolean;
}

export class TestRouterEdge {
  /** The API sessions the router knows, by token. */
  readonly apiSessions = new Map<string, ApiSession>();
  /** Session tokens the controller said ended. */
  readonly removedSessions: string[] = [];
  /** Full states applied so far, with their sync ids. */
  readonly appliedSyncs: string[] = [];
  readonly #chunks = new Map<string, Map<number, Chunk>>();
  readonly #waiters: Array<() => void> = [];

  constructor(
    readonly channel: Channel,
    listener: EdgeListener | null,
  ) {
    if (listener)
      channel.handle(ContentType.ServerHelloType, (hello) =>
        channel.reply(hello, {
          contentType: ContentType.ClientHelloType,
          headers: new Map(),
          body: clientHelloBody(listener.hostname, listener.port),
        }),
      );
    channel.handle(ContentType.ApiSessionAddedType, (message) => this.#added(message));
    channel.handle(ContentType.ApiSessionUpdatedType, (message) => {
      for (const session of fromBinary(ApiSessionUpdatedSchema, message.body).apiSessions)
        this.apiSessions.set(session.token, session);
      this.#changed();
    });
    channel.handle(ContentType.ApiSessionRemovedType, (message) => {
      for (const token of fromBinary(ApiSessionRemovedSchema, message.body).tokens) this.apiSessions.delete(token);
      this.#changed();
    });
    channel.handle(ContentType.SessionRemovedType, (message) => {
      this.removedSessions.push(...fromBinary(SessionRemovedSchema, message.body).tokens);
      this.#changed();
    });
  }

  #added(message: Message): void {
    const added = fromBinary(ApiSessionAddedSchema, message.body);
    if (!added.isFullState) {
      for (const session of added.apiSessions) this.apiSessions.set(session.token, session);
      return this.#changed();
    }
    const state = JSON.parse(new TextDecoder().decode(message.headers.get(1014))) as {
      id: string;
      isLast: boolean;
      sequence: number;
    };
    const chunks = this.#chunks.get(state.id) ?? new Map<number, Chunk>();
    this.#chunks.set(state.id, chunks);
    chunks.set(state.sequence, { sessions: added.apiSessions, isLast: state.isLast });
    const last = [...chunks.entries()].find(([, chunk]) => chunk.isLast)?.[0];
    if (last === undefined || [...Array(last + 1).keys()].some((sequence) => !chunks.has(sequence))) return;
    // RemoveMissingApiSessions: what the state does not name goes.
    const named = new Map(
      [...chunks.values()].flatMap((chunk) => chunk.sessions.map((session) => [session.token, session] as const)),
    );
    this.apiSessions.clear();
    for (const [token, session] of named) this.apiSessions.set(token, session);
    this.#chunks.delete(state.id);
    this.appliedSyncs.push(state.id);
    this.#changed();
  }

  #changed(): void {
    for (const wake of this.#waiters.splice(0)) wake();
  }

  /** Waits until `test` holds of the router's state (checked after every message that changes it). */
  async until(test: () => boolean, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!test()) {
      if (Date.now() > deadline) throw new Error('the router state did not reach the awaited condition in time');
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  }

  heartbeat(tokens: string[]): void {
    this.channel.send({
      contentType: ContentType.ApiSessionHeartbeatType,
      headers: new Map(),
      body: toBinary(ApiSessionHeartbeatSchema, create(ApiSessionHeartbeatSchema, { tokens })),
    });
  }

  requestResync(reason: string): void {
    this.channel.send({
      contentType: ContentType.RequestClientReSyncType,
      headers: new Map(),
      body: toBinary(RequestClientReSyncSchema, create(RequestClientReSyncSchema, { reason })),
    });
  }
}
