// Incremental frame reader: takes socket chunks as they come and hands out whole messages. A frame's declared sizes
// are checked against the limits at its 20-byte prelude, before anything is kept for it; its bytes are then copied
// into one buffer of exactly its size. Memory is thus bounded by one frame, and the work is linear in the bytes
// received however the peer splits them.
import { decodeHeaders, FrameError, MAGIC_V2, PRELUDE_BYTES, type Message } from './message.js';

export interface FrameLimits {
  maxHeaderBytes: number;
  maxBodyBytes: number;
}

export class FrameReader {
  #limits: FrameLimits;
  /** The prelude of the frame being read, filled up to #preludeFill. */
  readonly #prelude = Buffer.alloc(PRELUDE_BYTES);
  #preludeFill = 0;
  /** Headers and body of the frame being read, once its prelude is in. */
  #data: Buffer | undefined;
  #dataFill = 0;

  constructor(limits: FrameLimits) {
    this.#limits = limits;
  }

  /** Limits for the frames still to come (the hello has tighter ones than the messages after it). */
  setLimits(limits: FrameLimits): void {
    this.#limits = limits;
  }

  /** Adds a chunk and returns the messages it completes; throws FrameError on a frame that breaks the protocol. */
  push(chunk: Uint8Array): Message[] {
    const messages: Message[] = [];
    let offset = 0;
    while (offset < chunk.length) {
      if (this.#data === undefined) {
        const copied = Math.min(PRELUDE_BYTES - this.#preludeFill, chunk.length - offset);
        this.#prelude.set(chunk.subarray(offset, offset + copied), this.#preludeFill);
        this.#preludeFill += copied;
        offset += copied;
        // A wrong magic is told as soon as four bytes are in, not after a prelude that may never come.
        if (this.#preludeFill >= 4) this.#checkMagic();
        if (this.#preludeFill < PRELUDE_BYTES) break;
        this.#data = Buffer.allocUnsafe(this.#dataLength());
        this.#dataFill = 0;
      }
      const copied = Math.min(this.#data.length - this.#dataFill, chunk.length - offset);
      this.#data.set(chunk.subarray(offset, offset + copied), this.#dataFill);
      this.#dataFill += copied;
      offset += copied;
      if (this.#dataFill === this.#data.length) messages.push(this.#finish(this.#data));
    }
    return messages;
  }

  #checkMagic(): void {
    for (let index = 0; index < 4; index++) {
      if (this.#prelude[index] !== MAGIC_V2[index])
        throw new FrameError(`not a channel v2 frame (starts ${this.#prelude.subarray(0, 4).toString('hex')})`, true);
    }
  }

  #dataLength(): number {
    const headersLength = this.#prelude.readUInt32LE(12);
    const bodyLength = this.#prelude.readUInt32LE(16);
    const { maxHeaderBytes, maxBodyBytes } = this.#limits;
    if (headersLength > maxHeaderBytes)
      throw new FrameError(`headers of ${headersLength} bytes exceed the limit of ${maxHeaderBytes}`);
    if (bodyLength > maxBodyBytes)
      throw new FrameError(`body of ${bodyLength} bytes exceeds the limit of ${maxBodyBytes}`);
    return headersLength + bodyLength;
  }

  #finish(data: Buffer): Message {
    const headersLength = this.#prelude.readUInt32LE(12);
    const message: Message = {
      contentType: this.#prelude.readInt32LE(4),
      sequence: this.#prelude.readInt32LE(8),
      headers: decodeHeaders(data.subarray(0, headersLength)),
      body: data.subarray(headersLength),
    };
    this.#data = undefined;
    this.#preludeFill = 0;
    return message;
  }
}
