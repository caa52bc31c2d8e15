// The channel v2 hello exchange (classic_listener.go / classic_dialer.go): the dialer sends a hello (content type 0,
// sequence -1); the listener answers with a Result replying to -1. The hello is read under its own size limits and
// time limit, so a peer that connects and says nothing, or says too much, is dropped before it costs anything.
import type { Socket } from 'node:net';
import { FrameReader, type FrameLimits } from './frame-reader.js';
import {
  ContentType,
  FrameError,
  HELLO_SEQUENCE,
  Header,
  UNKNOWN_VERSION_RESPONSE,
  encodeMessage,
  type Message,
} from './message.js';
import { decodeBool, encodeBool, encodeI32 } from './header-codecs.js';
import { asError } from '../../lib/error-message.js';

/** Upstream's cap on a hello (readHelloV2). */
export const HELLO_LIMITS: FrameLimits = { maxHeaderBytes: 4192, maxBodyBytes: 4192 };

export interface HelloReceived {
  hello: Message;
  /** Reads what follows; its limits are still the hello's until the owner sets the channel's. */
  reader: FrameReader;
  /** Messages that arrived in the same chunk as the hello, to hand to Channel.start. */
  following: Message[];
}

/** Reads one frame (and any that came with it) from a paused-or-flowing socket within `timeoutMs`; leaves the socket paused. */
function readFirst(
  socket: Socket,
  reader: FrameReader,
  timeoutMs: number,
  onBadMagic: () => void,
): Promise<[Message, ...Message[]]> {
  return new Promise((resolve, reject) => {
    const finish = (outcome: { error: Error } | { messages: [Message, ...Message[]] }) => {
      clearTimeout(timer);
      socket.off('data', onData).off('close', onClose).off('error', onError);
      socket.pause();
      if ('error' in outcome) reject(outcome.error);
      else resolve(outcome.messages);
    };
    const onData = (chunk: Buffer) => {
      try {
        const [first, ...rest] = reader.push(chunk);
        if (first) finish({ messages: [first, ...rest] });
      } catch (error) {
        if (error instanceof FrameError && error.isBadMagic) onBadMagic();
        finish({ error: asError(error) });
      }
    };
    const onClose = () => finish({ error: new Error('connection closed before the hello exchange') });
    const onError = (error: Error) => finish({ error });
    const timer = setTimeout(() => finish({ error: new Error(`nothing received within ${timeoutMs} ms`) }), timeoutMs);
    socket.on('data', onData).on('close', onClose).on('error', onError);
    socket.resume();
  });
}

/** Listener side: waits for the peer's hello. */
export async function receiveHello(socket: Socket, timeoutMs: number): Promise<HelloReceived> {
  const reader = new FrameReader(HELLO_LIMITS);
  const [hello, ...following] = await readFirst(socket, reader, timeoutMs, () =>
    socket.write(UNKNOWN_VERSION_RESPONSE),
  );
  if (hello.contentType !== ContentType.hello)
    throw new FrameError(`expected a hello, got content type ${hello.contentType}`);
  return { hello: hello, reader, following };
}

/** Listener side: the success Result for a hello, with the listener's headers. */
export function writeHelloResult(socket: Socket, headers: ReadonlyMap<number, Uint8Array>): void {
  const result = new Map(headers);
  result.set(Header.resultSuccess, encodeBool(true));
  result.set(Header.replyFor, encodeI32(HELLO_SEQUENCE));
  socket.write(
    encodeMessage({
      contentType: ContentType.result,
      sequence: HELLO_SEQUENCE,
      headers: result,
      body: new Uint8Array(0),
    }),
  );
}

export interface HelloAnswered {
  result: Message;
  reader: FrameReader;
  following: Message[];
}

/** Dialer side: sends a hello and waits for its Result; a failed Result rejects with its message. */
export async function sendHello(
  socket: Socket,
  hello: { headers: Map<number, Uint8Array>; body: Uint8Array },
  timeoutMs: number,
  limits: FrameLimits,
): Promise<HelloAnswered> {
  const reader = new FrameReader(limits);
  socket.write(encodeMessage({ contentType: ContentType.hello, sequence: HELLO_SEQUENCE, ...hello }));
  const [result, ...following] = await readFirst(socket, reader, timeoutMs, () => undefined);
  if (result.contentType !== ContentType.result)
    throw new FrameError(`expected a hello result, got content type ${result.contentType}`);
  const success = result.headers.get(Header.resultSuccess);
  if (!success || !decodeBool(success)) throw new Error(`hello refused: ${Buffer.from(result.body).toString('utf8')}`);
  return { result: result, reader, following };
}
