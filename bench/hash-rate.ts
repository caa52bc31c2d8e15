// The raw argon2id hash rate on all cores at upstream's parameters: the ceiling for password logins, each of
// which hashes once.
import { availableParallelism } from 'node:os';
import { hashPassword } from '../src/auth/password.js';

export interface HashRate {
  hashesPerSecond: number;
  inFlight: number;
  seconds: number;
}

/**
 * @node-rs/argon2 hashes on libuv's thread pool, as the controller does, so enough promises in flight keep every
 * core busy without worker threads.
 */
export async function measureHashRate(seconds: number): Promise<HashRate> {
  const inFlight = Math.max(4, availableParallelism() * 2);
  await hashPassword('warm-up');
  const started = performance.now();
  const deadline = started + seconds * 1000;
  let hashes = 0;
  const loop = async () => {
    while (performance.now() < deadline) {
      await hashPassword('bench-password');
      hashes++;
    }
  };
  await Promise.all(Array.from({ length: inFlight }, loop));
  const elapsed = (performance.now() - started) / 1000;
  return { hashesPerSecond: hashes / elapsed, inFlight, seconds: elapsed };
}
