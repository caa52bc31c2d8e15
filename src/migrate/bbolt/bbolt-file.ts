// A read-only reader of bbolt files (go.etcd.io/bbolt v1.3.10, the store upstream's controller keeps ctrl.db in):
// the meta pages, branch and leaf pages, inline buckets and overflow pages, nothing else. No maintained npm library
// reads the format; it is small and stable (docs/reference/upstream-migration.md §c).
import { readFileSync } from 'node:fs';

const MAGIC = 0xed0cdaed;
const VERSION = 2;
const PAGE_HEADER = 16;
const ELEMENT_SIZE = 16;
const BUCKET_HEADER = 16;
const FLAG_BRANCH = 0x01;
const FLAG_LEAF = 0x02;
const FLAG_META = 0x04;
const LEAF_IS_BUCKET = 0x01;
/** The page sizes bbolt's `getPageSize` tries for meta 1 when meta 0 is torn. */
const COMMON_PAGE_SIZES = [4096, 8192, 16384, 32768, 65536];

export class BoltFormatError extends Error {}

/** One key of a bucket: a value, or a nested bucket. */
export type BoltEntry = { key: Buffer; value: Buffer; bucket?: undefined } | { key: Buffer; bucket: BoltBucket };

/** A page and where it lies: a page of the file, or the page inline in a bucket's value. */
interface PageView {
  data: Buffer;
  offset: number;
}

export class BoltBucket {
  readonly #file: BoltFile;
  readonly #root: bigint;
  readonly #inline: PageView | undefined;

  constructor(file: BoltFile, root: bigint, inline: PageView | undefined) {
    this.#file = file;
    this.#root = root;
    this.#inline = inline;
  }

  /** Every key in byte order, as bbolt's cursor walks them. */
  *entries(): Generator<BoltEntry> {
    yield* this.#walk(this.#inline ?? this.#file.page(this.#root));
  }

  /** The value under `key`; undefined when absent or a bucket. */
  get(key: string): Buffer | undefined {
    const entry = this.#find(key);
    return entry && entry.bucket === undefined ? entry.value : undefined;
  }

  /** The nested bucket named `key`, or undefined. */
  bucket(key: string): BoltBucket | undefined {
    return this.#find(key)?.bucket;
  }

  #find(key: string): BoltEntry | undefined {
    const wanted = Buffer.from(key, 'utf8');
    for (const entry of this.entries()) {
      const order = Buffer.compare(entry.key, wanted);
      if (order === 0) return entry;
      if (order > 0) return undefined;
    }
    return undefined;
  }

  *#walk(page: PageView): Generator<BoltEntry> {
    const { data, offset } = page;
    const flags = data.readUInt16LE(offset + 8);
    const count = data.readUInt16LE(offset + 10);
    for (let index = 0; index < count; index++) {
      const element = offset + PAGE_HEADER + index * ELEMENT_SIZE;
      if (flags & FLAG_BRANCH) {
        yield* this.#walk(this.#file.page(data.readBigUInt64LE(element + 8)));
      } else if (flags & FLAG_LEAF) {
        yield this.#leafEntry(data, element);
      } else {
        throw new BoltFormatError(`page at byte ${offset} is neither a branch nor a leaf (flags ${flags})`);
      }
    }
  }

  #leafEntry(data: Buffer, element: number): BoltEntry {
    const elementFlags = data.readUInt32LE(element);
    const position = element + data.readUInt32LE(element + 4);
    const keySize = data.readUInt32LE(element + 8);
    const valueSize = data.readUInt32LE(element + 12);
    const end = position + keySize + valueSize;
    if (end > data.length) throw new BoltFormatError(`leaf element at byte ${element} runs past its page`);
    const key = data.subarray(position, position + keySize);
    const value = data.subarray(position + keySize, end);
    if (!(elementFlags & LEAF_IS_BUCKET)) return { key, value };
    if (value.length < BUCKET_HEADER) throw new BoltFormatError(`bucket ${key.toString()} has a short header`);
    const root = value.readBigUInt64LE(0);
    // root 0: an inline bucket, its page right after the header inside the value (bbolt bucket.go openBucket).
    const inline = root === 0n ? { data: value, offset: BUCKET_HEADER } : undefined;
    return { key, bucket: new BoltBucket(this.#file, root, inline) };
  }
}

export interface BoltMeta {
  pageSize: number;
  root: bigint;
  txid: bigint;
  highWaterMark: bigint;
}

/** A whole bbolt file in memory (a controller's database is a few MB to a few hundred), read as of its last commit. */
export class BoltFile {
  readonly meta: BoltMeta;
  readonly #data: Buffer;

  constructor(data: Buffer) {
    this.#data = data;
    this.meta = currentMeta(data);
  }

  static read(path: string): BoltFile {
    return new BoltFile(readFileSync(path));
  }

  /** The top-level buckets, as a bucket. */
  root(): BoltBucket {
    return new BoltBucket(this, this.meta.root, undefined);
  }

  /** Page `id`; its overflow pages follow it in the file, so the view simply extends over them. */
  page(id: bigint): PageView {
    if (id < 2n || id >= this.meta.highWaterMark) throw new BoltFormatError(`page ${id} is outside the database`);
    const offset = Number(id) * this.meta.pageSize;
    if (offset + PAGE_HEADER > this.#data.length) throw new BoltFormatError(`page ${id} lies past the end of the file`);
    const overflow = this.#data.readUInt32LE(offset + 12);
    if (offset + (overflow + 1) * this.meta.pageSize > this.#data.length)
      throw new BoltFormatError(`page ${id} and its ${overflow} overflow pages run past the end of the file`);
    return { data: this.#data, offset };
  }
}

/** The valid meta page with the higher transaction id (bbolt db.go `DB.meta`): the last committed state. */
function currentMeta(data: Buffer): BoltMeta {
  const pageSize = readMeta(data, 0)?.pageSize ?? COMMON_PAGE_SIZES.find((size) => readMeta(data, size));
  if (pageSize === undefined) throw new BoltFormatError('not a bbolt database: no valid meta page');
  const metas = [readMeta(data, 0), readMeta(data, pageSize)].filter((meta) => meta !== undefined);
  const [newest] = metas.sort((a, b) => (a.txid > b.txid ? -1 : 1));
  if (newest === undefined) throw new BoltFormatError('not a bbolt database: no valid meta page');
  return newest;
}

/** A meta page at `offset` if its magic, version and checksum hold (bbolt db.go `meta.validate`). */
function readMeta(data: Buffer, offset: number): BoltMeta | undefined {
  const start = offset + PAGE_HEADER;
  if (data.length < start + 64) return undefined;
  if (!(data.readUInt16LE(offset + 8) & FLAG_META)) return undefined;
  if (data.readUInt32LE(start) !== MAGIC || data.readUInt32LE(start + 4) !== VERSION) return undefined;
  if (data.readBigUInt64LE(start + 56) !== fnv1a64(data.subarray(start, start + 56))) return undefined;
  return {
    pageSize: data.readUInt32LE(start + 8),
    root: data.readBigUInt64LE(start + 16),
    highWaterMark: data.readBigUInt64LE(start + 40),
    txid: data.readBigUInt64LE(start + 48),
  };
}

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK_64 = 0xffffffffffffffffn;

function fnv1a64(bytes: Buffer): bigint {
  let hash = FNV_OFFSET;
  for (const byte of bytes) hash = ((hash ^ BigInt(byte)) * FNV_PRIME) & MASK_64;
  return hash;
}
