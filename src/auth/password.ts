// Password hashing with argon2id at upstream's parameters, so hashes interoperate with migrated upstream data.
import { Algorithm, hashRaw } from '@node-rs/argon2';
import { randomBytes, timingSafeEqual } from 'node:crypto';

// ziti controller/model/authenticator_mod_updb.go: argon2.IDKey(password, salt, 1, 3*1024, 4, 32).
const PARAMETERS = {
  algorithm: Algorithm.Argon2id,
  timeCost: 1,
  memoryCost: 3 * 1024,
  parallelism: 4,
  outputLen: 32,
} as const;
// Upstream's salt length is binary.MaxVarintLen64 bytes.
const SALT_BYTES = 10;

export interface PasswordHash {
  hash: string;
  salt: string;
}

export async function hashPassword(password: string, salt: Buffer = randomBytes(SALT_BYTES)): Promise<PasswordHash> {
  const hash = await hashRaw(password, { ...PARAMETERS, salt });
  return { hash: hash.toString('base64'), salt: salt.toString('base64') };
}

/** Constant-time comparison (upstream compares strings; a timing-safe compare costs nothing here). */
export async function verifyPassword(password: string, stored: PasswordHash): Promise<boolean> {
  const { hash } = await hashPassword(password, Buffer.from(stored.salt, 'base64'));
  const expected = Buffer.from(stored.hash, 'base64');
  const actual = Buffer.from(hash, 'base64');
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
