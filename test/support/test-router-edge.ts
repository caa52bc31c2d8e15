// The edge side of the test router, as a v1.1.8 edge router without HA behaves (router/handler_edge_ctrl/hello.go,
// router/state/apiSession*.go): it answers the ServerHello with a ClientHello for its edge listener, keeps the API
// sessions it is told of (a full state is applied once every chunk up to the last is in, and drops what it does not
// name), and can send API-session heartbeats and resync requests.
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';
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

/** A full state applied: its sync id, how many API sessions it named, and when (performance.now()) it completed. */
export interface FullSync {
  id: string;
  sessions: number;
  at: number;
}

/** An ApiSessionAdded's isFullState and session count, walking its fields without decoding the sessions. */
function countAdded(body: Uint8Array): { isFullState: boolean; sessions: number } {
  const reader = new BinaryReader(body);
  let isFullState = false;
  let sessions = 0;
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (field === 1 && wireType === WireType.Varint) isFullState = reader.bool();
    else {
      if (field === 2) sessions += 1;
      reader.skip(wireType, field);
    }
  }
  return { isFullState, sessions };
}

/** Header 1014 of a full-state chunk. */
const syncState = (message: Message) =>
  JSON.parse(new TextDecoder().decode(message.headers.get(1014))) as { id: string; isLast: boolean; sequence: number };

export class TestRouterEdge {
  /** The API sessions the router knows, by token. */
  readonly apiSessions = new Map<string, ApiSession>();
  /** Session tokens the controller said ended. */
  readonly removedSessions: string[] = [];
  /** Full states applied so far, with their sync ids. */
  readonly appliedSyncs: string[] = [];
  /** The same with their sizes and times (a lean router keeps only these). */
  readonly fullSyncs: FullSync[] = [];
  readonly #chunks = new Map<string, Map<number, Chunk>>();
  readonly #counted = new Map<string, { sequences: Set<number>; last?: number; sessions: number }>();
  readonly #waiters: Array<() => void> = [];

  constructor(
    readonly channel: Channel,
    listener: EdgeListener | null,
    /** Counts the full state's sessions and keeps none (benches of many routers). */
    readonly lean = false,
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
    if (this.lean) return this.#countChunk(message);
    const added = fromBinary(ApiSessionAddedSchema, message.body);
    if (!added.isFullState) {
      for (const session of added.apiSessions) this.apiSessions.set(session.token, session);
      return this.#changed();
    }
    const state = syncState(message);
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
    this.fullSyncs.push({ id: state.id, sessions: named.size, at: performance.now() });
    this.#changed();
  }

  /** A lean router's ApiSessionAdded: a full state's chunks are counted until every one up to the last is in. */
  #countChunk(message: Message): void {
    const added = countAdded(message.body);
    if (!added.isFullState) return;
    const state = syncState(message);
    const sync = this.#counted.get(state.id) ?? { sequences: new Set<number>(), sessions: 0 };
    this.#counted.set(state.id, sync);
    if (!sync.sequences.has(state.sequence)) sync.sessions += added.sessions;
    sync.sequences.add(state.sequence);
    if (state.isLast) sync.last = state.sequence;
    if (sync.last === undefined || sync.sequences.size < sync.last + 1) return;
    this.#counted.delete(state.id);
    this.appliedSyncs.push(state.id);
    this.fullSyncs.push({ id: state.id, sessions: sync.sessions, at: performance.now() });
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
