// Channel v2 messages and their wire form (openziti/channel v2 message.go): a 20-byte prelude (magic 03 06 09 0c,
// then little-endian int32 content type, sequence, headers length and body length), the headers as
// {int32 key, int32 length, bytes} entries, then the body.

export interface Message {
  contentType: number;
  /** Per-sender counter, assigned by Channel.send when not given; the hello and its result use -1. */
  sequence: number;
  headers: Map<number, Uint8Array>;
  body: Uint8Array;
}

export const MAGIC_V2 = Uint8Array.of(0x03, 0x06, 0x09, 0x0c);
/** What a channel answers to a peer whose first frame has another magic: versions 1 and 2 (WriteUnknownVersionResponse). */
export const UNKNOWN_VERSION_RESPONSE = Uint8Array.of(0x03, 0x06, 0x09, 0x0a, 2, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0);
export const PRELUDE_BYTES = 20;
export const HELLO_SEQUENCE = -1;

export const ContentType = { hello: 0, ping: 1, result: 2, latency: 3, latencyResponse: 4, heartbeat: 5 } as const;

/** Channel-level headers (0-127 reserved to the channel; 128-255 are reflected into replies). */
export const Header = {
  connectionId: 0,
  replyFor: 1,
  resultSuccess: 2,
  helloRouterAdvertisements: 3,
  helloVersion: 4,
  heartbeat: 5,
  heartbeatResponse: 6,
  type: 7,
  id: 8,
} as const;

export const isReflectedHeader = (key: number): boolean => key >= 128 && key <= 255;

export function encodeMessage(message: Message): Buffer {
  let headersLength = 0;
  for (const value of message.headers.values()) headersLength += 8 + value.length;
  const frame = Buffer.allocUnsafe(PRELUDE_BYTES + headersLength + message.body.length);
  frame.set(MAGIC_V2, 0);
  frame.writeInt32LE(message.contentType, 4);
  frame.writeInt32LE(message.sequence, 8);
  frame.writeInt32LE(headersLength, 12);
  frame.writeInt32LE(message.body.length, 16);
  let offset = PRELUDE_BYTES;
  for (const [key, value] of message.headers) {
    frame.writeInt32LE(key, offset);
    frame.writeInt32LE(value.length, offset + 4);
    frame.set(value, offset + 8);
    offset += 8 + value.length;
  }
  frame.set(message.body, offset);
  return frame;
}

/** A frame that does not follow the protocol; the connection it came on is closed. */
export class FrameError extends Error {
  constructor(
    message: string,
    /** The first four bytes were not the v2 magic (the peer is told which versions we speak). */
    readonly isBadMagic = false,
  ) {
    super(message);
    this.name = 'FrameError';
  }
}

/** Parses the headers section; a key repeated keeps its last value, as upstream's map does. */
export function decodeHeaders(section: Buffer): Map<number, Uint8Array> {
  const headers = new Map<number, Uint8Array>();
  let offset = 0;
  while (offset < section.length) {
    if (offset + 8 > section.length)
      throw new FrameError(`truncated header entry at byte ${offset} of ${section.length}`);
    const key = section.readInt32LE(offset);
    const length = section.readUInt32LE(offset + 4);
    if (offset + 8 + length > section.length)
      throw new FrameError(`header ${key} claims ${length} bytes, past the end of the headers`);
    headers.set(key, section.subarray(offset + 8, offset + 8 + length));
    offset += 8 + length;
  }
  return headers;
}
