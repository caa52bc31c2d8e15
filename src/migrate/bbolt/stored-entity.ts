// One upstream entity bucket (`ziti/<type>/<id>/`) read with typed getters that fail closed: a field of an
// unexpected type is an error naming the entity and the field, never a silent default.
import type { BoltBucket, BoltEntry } from './bbolt-file.js';
import {
  BoltzValueError,
  decodeField,
  readMap,
  readStringList,
  type FieldValue,
  type JsonValue,
} from './boltz-values.js';

export class StoredEntity {
  readonly #fields = new Map<string, BoltEntry>();

  constructor(
    readonly type: string,
    readonly id: string,
    bucket: BoltBucket,
  ) {
    for (const entry of bucket.entries()) this.#fields.set(entry.key.toString('utf8'), entry);
  }

  #value(name: string): FieldValue | undefined {
    const entry = this.#fields.get(name);
    if (entry === undefined) return undefined;
    if (entry.bucket) throw this.#error(name, 'a bucket where a value was expected');
    return decodeField(entry.value, `${this.type}/${this.id}/${name}`);
  }

  #error(name: string, what: string): BoltzValueError {
    return new BoltzValueError(`${this.type} ${this.id}: field ${name} holds ${what}`);
  }

  /** A string field; undefined when absent or nil. */
  string(name: string): string | undefined {
    const value = this.#value(name);
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') throw this.#error(name, `${typeof value}, expected a string`);
    return value;
  }

  /** A bool field; absent and nil are false, as upstream's getters read them. */
  bool(name: string): boolean {
    const value = this.#value(name);
    if (value === undefined || value === null) return false;
    if (typeof value !== 'boolean') throw this.#error(name, `${typeof value}, expected a bool`);
    return value;
  }

  /** An int32 or int64 field; undefined when absent or nil. */
  int(name: string): number | undefined {
    const value = this.#value(name);
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'number' || !Number.isInteger(value))
      throw this.#error(name, `${typeof value}, expected an integer`);
    return value;
  }

  /** A time field as an ISO timestamp (the form the store keeps); undefined when absent or nil. */
  time(name: string): string | undefined {
    const value = this.#value(name);
    if (value === undefined || value === null) return undefined;
    if (!(value instanceof Date)) throw this.#error(name, `${typeof value}, expected a time`);
    return value.toISOString();
  }

  /** A string list or id set: byte order, no duplicates. */
  list(name: string): string[] {
    return readStringList(this.#bucket(name));
  }

  /** A map (tags, appData, config data, hosting costs). */
  map(name: string): Record<string, JsonValue> {
    return readMap(this.#bucket(name));
  }

  /** A nested bucket read as an entity of its own (a child store: `edge/`, `transitRouter/`, a posture subtype). */
  child(name: string): StoredEntity | undefined {
    const bucket = this.#bucket(name);
    return bucket && new StoredEntity(`${this.type}/${name}`, this.id, bucket);
  }

  /** The names of nested buckets (an OS check's operating systems, an identity's service configs). */
  bucketNames(): string[] {
    return [...this.#fields].filter(([, entry]) => entry.bucket).map(([name]) => name);
  }

  /** The names of plain values. */
  valueNames(): string[] {
    return [...this.#fields].filter(([, entry]) => !entry.bucket).map(([name]) => name);
  }

  has(name: string): boolean {
    return this.#fields.has(name);
  }

  #bucket(name: string): BoltBucket | undefined {
    const entry = this.#fields.get(name);
    if (entry === undefined) return undefined;
    if (!entry.bucket) {
      // A nil written where a bucket could be (boltz SetNil on an empty list) reads as empty.
      if (entry.value.length === 0 || entry.value[0] === 7) return undefined;
      throw this.#error(name, 'a value where a bucket was expected');
    }
    return entry.bucket;
  }
}

/** Every entity of a type: the buckets under `ziti/<type>/`, named by id. */
export function* storedEntities(ziti: BoltBucket, type: string): Generator<StoredEntity> {
  const bucket = ziti.bucket(type);
  if (!bucket) return;
  for (const entry of bucket.entries()) {
    if (!entry.bucket) throw new BoltzValueError(`ziti/${type}/${entry.key.toString('utf8')} is not a bucket`);
    yield new StoredEntity(type, entry.key.toString('utf8'), entry.bucket);
  }
}
