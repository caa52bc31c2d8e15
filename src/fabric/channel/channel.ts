// A channel v2 connection after its hello: sends with sequence numbers, matches replies to requests (header 1), answers
// pings, and runs heartbeats both ways as openziti/channel's heartbeater.go does: our header 5 rides on the next
// message out at most every `sendIntervalMs` (or goes alone), the peer's header 5 is echoed in header 6, and a peer
// that leaves ours unanswered for `closeUnresponsiveMs` is closed. Frames that break the protocol, a peer that
// stops reading, and handler failures are logged on this connection alone. The bytes come from any duplex stream: a
// router's TLS socket, or the management channel's websocket (one frame per websocket message, mgmt/mgmt-socket.ts).
import { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { FrameError, type Message, ContentType, Header, encodeMessage, isReflectedHeader } from './message.js';
import type { FrameReader } from './frame-reader.js';
import { decodeI32, decodeU64, encodeBool, encodeI32, encodeU64 } from './header-codecs.js';

/** The part of a pino logger the channel uses (fabric/channel imports nothing of ours but lib/). */
export interface ChannelLogger {
  debug(fields: object, message: string): void;
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export interface HeartbeatOptions {
  /** How often our header 5 goes out (upstream 10 s). */
  sendIntervalMs: number;
  /** How often we look for a due heartbeat or an unresponsive peer (upstream 1 s). */
  checkIntervalMs: number;
  /** Close when no header 6 answered ours for this long (upstream 30 s; the first check waits twice this). */
  closeUnresponsiveMs: number;
}

export interface ChannelOptions {
  /** Names the connection in logs (e.g. the router id). */
  label: string;
  logger: ChannelLogger;
  /**
   * Heartbeats both ways; without them neither side's silence is watched and a peer's header 5 goes unanswered, as
   * on upstream's management channel (its bind handler configures no heartbeater).
   */
  heartbeat: HeartbeatOptions | undefined;
  /** A peer that leaves this much of our output unread is closed. */
  maxWriteBufferBytes: number;
  /** Unix time in ns for heartbeat headers; tests may fix it. */
  nowNanos?: () => bigint;
  /** Sees every message received, before it is handled (tests, tracing). */
  onReceive?: (message: Message) => void;
}

type Outgoing = Omit<Message, 'sequence'>;
type Handler = (message: Message) => void | Promise<void>;
interface Pending {
  resolve: (message: Message) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

const MAX_SEQUENCE = 0x7fffffff;
/** Upstream waits this long for traffic the heartbeat response could ride on before sending it alone. */
const RESPONSE_RIDE_MS = 2;

export class Channel {
  readonly label: string;
  readonly closed: Promise<void>;
  readonly #socket: Duplex;
  readonly #reader: FrameReader;
  readonly #options: ChannelOptions;
  readonly #handlers = new Map<number, Handler>();
  #others: Handler | undefined;
  readonly #pending = new Map<number, Pending>();
  readonly #nowNanos: () => bigint;
  #sequence = 0;
  #closeReason: string | undefined;
  #markClosed!: () => void;
  #checkTimer: NodeJS.Timeout | undefined;
  #lastHeartbeatSentAt = 0;
  #lastResponseAt: number;
  #unanswered: bigint | undefined;

  constructor(socket: Duplex, reader: FrameReader, options: ChannelOptions) {
    this.#socket = socket;
    this.#reader = reader;
    this.#options = options;
    this.label = options.label;
    this.#nowNanos = options.nowNanos ?? (() => BigInt(Date.now()) * 1_000_000n);
    // As upstream's controller: a new peer gets twice the timeout before its silence counts.
    this.#lastResponseAt = Date.now() + (options.heartbeat?.closeUnresponsiveMs ?? 0);
    this.closed = new Promise((resolve) => (this.#markClosed = resolve));
    socket.on('close', () => this.close('connection closed by peer'));
    socket.on('error', (error) => this.close(`connection error: ${error.message}`));
  }

  get isClosed(): boolean {
    return this.#closeReason !== undefined;
  }

  /**
   * Both ends of the connection as Go writes a net.Addr (`host:port`, `[v6]:port`): what change records name. A
   * channel over another stream (the management channel's websocket) has no addresses of its own: `:0`.
   */
  get addresses(): { local: string; remote: string } {
    const format = (host: string | undefined, port: number | undefined) =>
      `${host?.includes(':') ? `[${host}]` : (host ?? '')}:${port ?? 0}`;
    const socket = this.#socket instanceof Socket ? this.#socket : undefined;
    return {
      local: format(socket?.localAddress, socket?.localPort),
      remote: format(socket?.remoteAddress, socket?.remotePort),
    };
  }

  /** Starts reading (after the owner registered its handlers), first dispatching messages that came with the hello. */
  start(initial: Message[] = []): void {
    if (this.isClosed) return;
    this.#socket.on('data', (chunk: Buffer) => this.#receive(chunk));
    const heartbeat = this.#options.heartbeat;
    if (heartbeat) this.#checkTimer = setInterval(() => this.#check(heartbeat), heartbeat.checkIntervalMs).unref();
    for (const message of initial) this.#dispatch(message);
    this.#socket.resume();
  }

  /** Binds a content type; a second binding of the same type is a programming error and throws. */
  handle(contentType: number, handler: Handler): void {
    if (this.#handlers.has(contentType)) throw new Error(`content type ${contentType} is bound twice`);
    this.#handlers.set(contentType, handler);
  }

  /** Receives every message of a content type no handler is bound to (by default: logged and dropped). */
  handleOthers(handler: (message: Message) => void): void {
    this.#others = handler;
  }

  send(message: Outgoing): void {
    this.#write({ ...message, sequence: this.#nextSequence() });
  }

  request(message: Outgoing, timeoutMs: number): Promise<Message> {
    if (this.isClosed) return Promise.reject(new Error(`channel closed: ${this.#closeReason}`));
    const sequence = this.#nextSequence();
    return new Promise<Message>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(sequence);
        reject(new Error(`no reply to content type ${message.contentType} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#pending.set(sequence, { resolve, reject, timer });
      this.#write({ ...message, sequence });
    });
  }

  reply(to: Message, message: Outgoing): void {
    const headers = new Map(message.headers);
    for (const [key, value] of to.headers) if (isReflectedHeader(key)) headers.set(key, value);
    headers.set(Header.replyFor, encodeI32(to.sequence));
    this.send({ ...message, headers });
  }

  /**
   * Resolves once the peer has read what we wrote down to the socket's high-water mark (at once when it is below), or
   * the channel closed. The one place the channel tells of backpressure: a sender of much data (a router's full
   * API-session state) waits on it between messages, so its data is never buffered here whole.
   */
  drained(): Promise<void> {
    const socket = this.#socket;
    if (this.isClosed || !socket.writableNeedDrain) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        socket.off('drain', done);
        socket.off('close', done);
        resolve();
      };
      socket.once('drain', done);
      socket.once('close', done);
    });
  }

  close(reason: string): void {
    if (this.isClosed) return;
    this.#closeReason = reason;
    clearInterval(this.#checkTimer);
    for (const pending of this.#pending.values()) {
      clearTimeout(pending.timer);
      pending.reject(new Error(`channel closed: ${reason}`));
    }
    this.#pending.clear();
    this.#socket.destroy();
    this.#options.logger.debug({ channel: this.label, reason }, 'control channel closed');
    this.#markClosed();
  }

  get closeReason(): string | undefined {
    return this.#closeReason;
  }

  #nextSequence(): number {
    this.#sequence = this.#sequence >= MAX_SEQUENCE ? 1 : this.#sequence + 1;
    return this.#sequence;
  }

  #write(message: Message): void {
    if (this.isClosed) return;
    const now = Date.now();
    const heartbeat = this.#options.heartbeat;
    if (heartbeat && now - this.#lastHeartbeatSentAt > heartbeat.sendIntervalMs) {
      message.headers = new Map(message.headers).set(Header.heartbeat, encodeU64(this.#nowNanos()));
      this.#lastHeartbeatSentAt = now;
    }
    if (this.#unanswered !== undefined) {
      message.headers = new Map(message.headers).set(Header.heartbeatResponse, encodeU64(this.#unanswered));
      this.#unanswered = undefined;
    }
    this.#socket.write(encodeMessage(message));
    if (this.#socket.writableLength > this.#options.maxWriteBufferBytes) {
      this.#fail(`peer left ${this.#socket.writableLength} bytes unread (limit ${this.#options.maxWriteBufferBytes})`);
    }
  }

  #receive(chunk: Buffer): void {
    let messages: Message[];
    try {
      messages = this.#reader.push(chunk);
    } catch (error) {
      if (!(error instanceof FrameError)) throw error;
      this.#fail(`unparseable frame: ${error.message}`);
      return;
    }
    for (const message of messages) {
      if (this.isClosed) return;
      this.#dispatch(message);
    }
  }

  #dispatch(message: Message): void {
    this.#options.onReceive?.(message);
    try {
      this.#readHeartbeats(message);
      const replyFor = message.headers.get(Header.replyFor);
      const sequence = replyFor?.length === 4 ? decodeI32(replyFor) : undefined;
      const pending = sequence === undefined ? undefined : this.#pending.get(sequence);
      if (pending && sequence !== undefined) {
        this.#pending.delete(sequence);
        clearTimeout(pending.timer);
        pending.resolve(message);
        return;
      }
    } catch (error) {
      if (!(error instanceof FrameError)) throw error;
      this.#fail(`unparseable frame: ${error.message}`);
      return;
    }
    if (message.contentType === ContentType.heartbeat) return;
    if (message.contentType === ContentType.ping) {
      this.reply(message, {
        contentType: ContentType.result,
        headers: new Map([[Header.resultSuccess, encodeBool(true)]]),
        body: new Uint8Array(0),
      });
      return;
    }
    const handler = this.#handlers.get(message.contentType) ?? this.#others;
    if (!handler) {
      this.#options.logger.debug(
        { channel: this.label, contentType: message.contentType },
        'no handler for control message: dropped',
      );
      return;
    }
    const failed = (error: unknown) =>
      this.#options.logger.error(
        { channel: this.label, contentType: message.contentType, err: error },
        'control message handler failed',
      );
    try {
      const done = handler(message);
      if (done) done.catch(failed);
    } catch (error) {
      failed(error);
    }
  }

  #readHeartbeats(message: Message): void {
    if (!this.#options.heartbeat) return;
    const heartbeat = message.headers.get(Header.heartbeat);
    if (heartbeat) {
      this.#unanswered = decodeU64(heartbeat);
      // Echo it on the next message out; alone if nothing else goes out soon.
      setTimeout(() => {
        if (this.#unanswered !== undefined && !this.isClosed)
          this.send({ contentType: ContentType.heartbeat, headers: new Map(), body: new Uint8Array(0) });
      }, RESPONSE_RIDE_MS).unref();
    }
    if (message.headers.has(Header.heartbeatResponse)) this.#lastResponseAt = Date.now();
  }

  #check({ sendIntervalMs, closeUnresponsiveMs }: HeartbeatOptions): void {
    const now = Date.now();
    if (now - this.#lastResponseAt > closeUnresponsiveMs) {
      this.#fail(`no heartbeat response within ${closeUnresponsiveMs} ms`);
      return;
    }
    if (now - this.#lastHeartbeatSentAt > sendIntervalMs)
      this.send({ contentType: ContentType.heartbeat, headers: new Map(), body: new Uint8Array(0) });
  }

  /** Closes for a fault of the peer, with one warning naming it. */
  #fail(reason: string): void {
    if (this.isClosed) return;
    this.#options.logger.warn({ channel: this.label, reason }, 'closing control channel');
    this.close(reason);
  }
}
