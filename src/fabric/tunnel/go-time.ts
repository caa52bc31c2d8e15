// Go's time.Time MarshalBinary / UnmarshalBinary (src/time/time.go): the form of the last-update token upstream's
// ServiceList carries and its router sends back with ListServicesRequest. Version 1: the version byte, seconds since
// January 1 of year 1 (8 bytes), nanoseconds (4), the zone offset in minutes (2; -1 is UTC); version 2 adds the
// offset's seconds (1).

/** Seconds from January 1, year 1 to the Unix epoch (Go's unixToInternal). */
const UNIX_TO_INTERNAL = 62_135_596_800n;
const V1 = 1;
const V2 = 2;

export function encodeGoTime(ms: number): Uint8Array {
  const out = Buffer.alloc(15);
  out[0] = V1;
  const whole = Math.floor(ms / 1000);
  out.writeBigInt64BE(BigInt(whole) + UNIX_TO_INTERNAL, 1);
  out.writeUInt32BE((ms - whole * 1000) * 1_000_000, 9);
  out.writeInt16BE(-1, 13);
  return new Uint8Array(out);
}

/** Milliseconds since the Unix epoch, or undefined when it is not Go's binary time. */
export function decodeGoTime(bytes: Uint8Array): number | undefined {
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (data.length === 0) return undefined;
  if (!(data[0] === V1 && data.length === 15) && !(data[0] === V2 && data.length === 16)) return undefined;
  const seconds = data.readBigInt64BE(1) - UNIX_TO_INTERNAL;
  const nanos = data.readUInt32BE(9);
  return Number(seconds) * 1000 + Math.floor(nanos / 1_000_000);
}
