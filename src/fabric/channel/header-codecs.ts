// Typed header values as channel v2 writes them (message.go and its Encode*/Decode* helpers): booleans one byte,
// integers little-endian, strings raw UTF-8, and three length-prefixed collections. Decoders throw FrameError on
// bytes that do not fit, so a malformed header fails like a malformed frame.
import { FrameError } from './message.js';

const utf8 = new TextEncoder();
const fromUtf8 = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8');
const view = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);

export const encodeBool = (value: boolean): Uint8Array => Uint8Array.of(value ? 1 : 0);
/** Upstream reads true only from a first byte of 1. */
export const decodeBool = (bytes: Uint8Array): boolean => bytes.length > 0 && bytes[0] === 1;

export function encodeU32(value: number): Uint8Array {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32LE(value >>> 0);
  return bytes;
}
export function encodeI32(value: number): Uint8Array {
  const bytes = Buffer.alloc(4);
  bytes.writeInt32LE(value);
  return bytes;
}
export function decodeU32(bytes: Uint8Array): number {
  if (bytes.length !== 4) throw new FrameError(`a 32-bit header has ${bytes.length} bytes`);
  return view(bytes).readUInt32LE(0);
}
export function decodeI32(bytes: Uint8Array): number {
  if (bytes.length !== 4) throw new FrameError(`a 32-bit header has ${bytes.length} bytes`);
  return view(bytes).readInt32LE(0);
}
export function encodeU64(value: bigint): Uint8Array {
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64LE(BigInt.asUintN(64, value));
  return bytes;
}
export function decodeU64(bytes: Uint8Array): bigint {
  if (bytes.length !== 8) throw new FrameError(`a 64-bit header has ${bytes.length} bytes`);
  return view(bytes).readBigUInt64LE(0);
}

export const encodeString = (value: string): Uint8Array => utf8.encode(value);
export const decodeString = fromUtf8;

/** A reader over length-prefixed collections that refuses to read past the end. */
class Cursor {
  #offset = 0;
  readonly #bytes: Buffer;
  constructor(bytes: Uint8Array) {
    this.#bytes = view(bytes);
  }
  u32(): number {
    if (this.#offset + 4 > this.#bytes.length) throw new FrameError('collection header ends inside a length');
    const value = this.#bytes.readUInt32LE(this.#offset);
    this.#offset += 4;
    return value;
  }
  bytes(): Uint8Array {
    const length = this.u32();
    if (this.#offset + length > this.#bytes.length)
      throw new FrameError(`collection header entry of ${length} bytes runs past its end`);
    const value = this.#bytes.subarray(this.#offset, this.#offset + length);
    this.#offset += length;
    return value;
  }
  /** Upstream refuses more than 128 entries; an empty header is an empty collection. */
  count(): number {
    if (this.#bytes.length === 0) return 0;
    const count = this.u32();
    if (count > MAX_COLLECTION_ENTRIES)
      throw new FrameError(`collection header claims ${count} entries (at most ${MAX_COLLECTION_ENTRIES})`);
    return count;
  }
}

const MAX_COLLECTION_ENTRIES = 128;

/** Upstream writes an empty collection as no bytes at all. */
function collection(size: number, parts: Uint8Array[]): Uint8Array {
  return size === 0 ? new Uint8Array(0) : Buffer.concat([encodeU32(size), ...parts]);
}
const lengthPrefixed = (bytes: Uint8Array) => [encodeU32(bytes.length), bytes];

export function encodeStringSlice(values: readonly string[]): Uint8Array {
  return collection(
    values.length,
    values.flatMap((value) => lengthPrefixed(utf8.encode(value))),
  );
}
export function decodeStringSlice(bytes: Uint8Array): string[] {
  const cursor = new Cursor(bytes);
  return Array.from({ length: cursor.count() }, () => fromUtf8(cursor.bytes()));
}

export function encodeU32ToBytesMap(map: ReadonlyMap<number, Uint8Array>): Uint8Array {
  return collection(
    map.size,
    [...map].flatMap(([key, value]) => [encodeU32(key), ...lengthPrefixed(value)]),
  );
}
export function decodeU32ToBytesMap(bytes: Uint8Array): Map<number, Uint8Array> {
  const cursor = new Cursor(bytes);
  const map = new Map<number, Uint8Array>();
  for (let count = cursor.count(); count > 0; count--) map.set(cursor.u32(), cursor.bytes());
  return map;
}

export function encodeStringToStringMap(map: Readonly<Record<string, string>>): Uint8Array {
  return collection(
    Object.keys(map).length,
    Object.entries(map).flatMap(([key, value]) => [
      ...lengthPrefixed(utf8.encode(key)),
      ...lengthPrefixed(utf8.encode(value)),
    ]),
  );
}
export function decodeStringToStringMap(bytes: Uint8Array): Record<string, string> {
  const cursor = new Cursor(bytes);
  const map: Record<string, string> = {};
  for (let count = cursor.count(); count > 0; count--) {
    const key = fromUtf8(cursor.bytes());
    map[key] = fromUtf8(cursor.bytes());
  }
  return map;
}

/** A big-endian bit mask as Go's big.Int.Bytes() writes it: no leading zero bytes, nothing at all for 0. */
export function encodeBitmask(bits: readonly number[]): Uint8Array {
  let mask = 0n;
  for (const bit of bits) mask |= 1n << BigInt(bit);
  const bytes: number[] = [];
  for (; mask > 0n; mask >>= 8n) bytes.unshift(Number(mask & 0xffn));
  return Uint8Array.from(bytes);
}
export function decodeBitmask(bytes: Uint8Array): Set<number> {
  const bits = new Set<number>();
  bytes.forEach((byte, index) => {
    for (let bit = 0; bit < 8; bit++) if (byte & (1 << bit)) bits.add((bytes.length - 1 - index) * 8 + bit);
  });
  return bits;
}
