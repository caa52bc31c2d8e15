// Upstream's field encoding inside bbolt buckets (openziti/storage v0.3.0 boltz/typed_bucket.go): one type byte, then
// the payload; string lists as buckets of `0x05`-prefixed keys; maps as nested buckets of typed values.
import { BoltBucket } from './bbolt-file.js';

export class BoltzValueError extends Error {}

const TYPE_BOOL = 1;
const TYPE_INT32 = 2;
const TYPE_INT64 = 3;
const TYPE_FLOAT64 = 4;
const TYPE_STRING = 5;
const TYPE_TIME = 6;
const TYPE_NIL = 7;
/** boltz ListSizeKeyName: the key holding a list's length inside a map. */
const LIST_SIZE_KEY = '__list__size__36484231-110c-4767-afe2-01b6e3db107a';
/** Seconds from Go's zero time (0001-01-01) to the Unix epoch. */
const GO_EPOCH_OFFSET = 62135596800n;

export type FieldValue = boolean | number | string | Date | null;
export type JsonValue = FieldValue | JsonValue[] | { [key: string]: JsonValue };

/** A stored field's value by its type byte; an empty value is nil (boltz GetTypeAndValue). */
export function decodeField(raw: Buffer, name = 'value'): FieldValue {
  if (raw.length === 0) return null;
  const payload = raw.subarray(1);
  const need = (size: number) => {
    if (payload.length !== size) throw new BoltzValueError(`${name}: ${payload.length} bytes, expected ${size}`);
  };
  switch (raw[0]) {
    case TYPE_BOOL:
      need(1);
      return payload[0] === 1;
    case TYPE_INT32:
      need(4);
      return payload.readInt32LE(0);
    case TYPE_INT64: {
      need(8);
      const value = payload.readBigInt64LE(0);
      if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER))
        throw new BoltzValueError(`${name}: ${value} is beyond what a JavaScript number holds exactly`);
      return Number(value);
    }
    case TYPE_FLOAT64:
      need(8);
      return payload.readDoubleLE(0);
    case TYPE_STRING:
      return payload.toString('utf8');
    case TYPE_TIME:
      return decodeGoTime(payload, name);
    case TYPE_NIL:
      return null;
    default:
      throw new BoltzValueError(`${name}: unknown field type ${raw[0]}`);
  }
}

/**
 * Go's `time.Time.MarshalBinary`: version 1 (15 bytes) or 2 (16, with zone seconds), int64 BE seconds since year 1,
 * int32 BE nanoseconds, zone minutes. The instant is what counts; JavaScript keeps milliseconds.
 */
function decodeGoTime(payload: Buffer, name: string): Date {
  const version = payload[0];
  if (!((version === 1 && payload.length === 15) || (version === 2 && payload.length === 16)))
    throw new BoltzValueError(`${name}: not a Go time (version ${version}, ${payload.length} bytes)`);
  const unixSeconds = payload.readBigInt64BE(1) - GO_EPOCH_OFFSET;
  const nanoseconds = payload.readInt32BE(9);
  return new Date(Number(unixSeconds) * 1000 + Math.floor(nanoseconds / 1_000_000));
}

/** A string list or id set: keys `0x05` + the string, in byte order (boltz ReadStringList). */
export function readStringList(bucket: BoltBucket | undefined): string[] {
  if (!bucket) return [];
  const values: string[] = [];
  for (const { key } of bucket.entries()) {
    if (key[0] !== TYPE_STRING) throw new BoltzValueError(`list entry of type ${key[0]}, expected a string`);
    values.push(key.subarray(1).toString('utf8'));
  }
  return values;
}

/** A map (boltz GetMap): typed values, nested maps as buckets, lists as buckets holding their size. */
export function readMap(bucket: BoltBucket | undefined): Record<string, JsonValue> {
  const map: Record<string, JsonValue> = {};
  if (!bucket) return map;
  for (const entry of bucket.entries()) {
    const key = entry.key.toString('utf8');
    map[key] = entry.bucket ? readContainer(entry.bucket) : decodeField(entry.value, key);
  }
  return map;
}

function readContainer(bucket: BoltBucket): JsonValue {
  const size = bucket.get(LIST_SIZE_KEY);
  return size === undefined ? readMap(bucket) : readList(bucket, size);
}

/** A list inside a map (boltz PutList): keys `0x02` + int32 LE index, the length under LIST_SIZE_KEY. */
function readList(bucket: BoltBucket, sizeValue: Buffer): JsonValue[] {
  const size = decodeField(sizeValue, LIST_SIZE_KEY);
  if (typeof size !== 'number') throw new BoltzValueError('a list size that is not a number');
  const list: JsonValue[] = new Array<JsonValue>(size).fill(null);
  for (const entry of bucket.entries()) {
    if (entry.key.toString('utf8') === LIST_SIZE_KEY) continue;
    if (entry.key[0] !== TYPE_INT32 || entry.key.length !== 5) throw new BoltzValueError('a list key that is no index');
    const index = entry.key.readInt32LE(1);
    if (index < 0 || index >= size) throw new BoltzValueError(`list index ${index} outside its size ${size}`);
    list[index] = entry.bucket ? readContainer(entry.bucket) : decodeField(entry.value);
  }
  return list;
}
