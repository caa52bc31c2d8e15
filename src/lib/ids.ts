// Identifier generators with upstream's shapes (ziti controller/idgen, common/eid): all from the CSPRNG.
import { randomBytes, randomUUID } from 'node:crypto';

const SHORTID_ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BASE36 = '0123456789abcdefghijklmnopqrstuvwxyz';

// Random bytes drawn 4 KiB at a time: one CSPRNG call per ~400 ids instead of one per id (request ids are
// made on every request).
let pool = Buffer.alloc(0);
let poolOffset = 0;
function takeRandom(count: number): Buffer {
  if (poolOffset + count > pool.length) {
    pool = randomBytes(4096);
    poolOffset = 0;
  }
  poolOffset += count;
  return pool.subarray(poolOffset - count, poolOffset);
}

/** Ten characters of `0-9a-zA-Z.-`, the shape of upstream shortids (identities, edge routers, request ids). */
export function newShortId(): string {
  const bytes = takeRandom(10);
  let id = '';
  // 64 symbols: each byte's low 6 bits index the alphabet without bias.
  for (const byte of bytes) id += SHORTID_ALPHABET[byte & 63];
  return id;
}

/** A random UUID written in base62, as upstream ids policies, services, configs and the like. */
export function newBase62Id(): string {
  let n = BigInt(`0x${randomUUID().replaceAll('-', '')}`);
  let out = '';
  while (n > 0n) {
    out = BASE62.charAt(Number(n % 62n)) + out;
    n /= 62n;
  }
  return out || '0';
}

/** `c` + 24 lower-case alphanumerics, roughly time-ordered like upstream cuids (API sessions, sessions). */
export function newCuid(now: Date = new Date()): string {
  const time = now.getTime().toString(36).padStart(8, '0').slice(-8);
  let random = '';
  for (const byte of takeRandom(16)) random += BASE36[byte % 36];
  return `c${time}${random}`;
}

/** A random UUIDv4: API session tokens and enrollment tokens. */
export function newToken(): string {
  return randomUUID();
}

export interface IdGenerators {
  shortId: () => string;
  base62: () => string;
  cuid: (now?: Date) => string;
  token: () => string;
}

export const defaultIds: IdGenerators = { shortId: newShortId, base62: newBase62Id, cuid: newCuid, token: newToken };
