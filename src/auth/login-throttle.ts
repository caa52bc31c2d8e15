// Throttling of failed logins for everyone, beyond any auth policy's lockout: failures are counted per key (a
// username, a source address, an identity's MFA codes) in the database, so every controller on it and a restart see
// the same counts; a key that has used up its failures in the current window answers 429 RATE_LIMITED until the
// window ends. Attempts on one username are also taken one at a time, so concurrency cannot overshoot the count.
import type { FastifyReply } from 'fastify';
import { ApiError } from '../errors/api-error.js';
import { formatTimestamp, type Clock } from '../lib/clock.js';
import { clearFailures, countFailures, openFailureWindows } from '../store/queries/login-failures.js';
import type { Store } from '../store/store.js';

export interface ThrottleKey {
  /** `username:<name>`, `address:<ip>`, `mfa:<identityId>`. */
  key: string;
  /** Failures allowed per window. */
  limit: number;
}

export interface LoginThrottleOptions {
  store: Store;
  clock: Clock;
  windowMs: number;
  usernameFailures: number;
  addressFailures: number;
}

/** Waiting attempts on one key beyond which more are refused at once rather than queued. */
const MAX_WAITING = 1_000;

export class LoginThrottle {
  readonly #options: LoginThrottleOptions;
  /** key → the end of the queue of attempts on that key (in-process scheduling only, not state). */
  readonly #tails = new Map<string, { tail: Promise<void>; waiting: number }>();

  constructor(options: LoginThrottleOptions) {
    this.#options = options;
  }

  /** The keys a password login counts against. */
  passwordKeys(username: string, address: string): ThrottleKey[] {
    return [
      { key: `username:${username}`, limit: this.#options.usernameFailures },
      { key: `address:${address}`, limit: this.#options.addressFailures },
    ];
  }

  /** The keys a second-factor code counts against: the identity (a session can be had again) and the address. */
  mfaKeys(identityId: string, address: string): ThrottleKey[] {
    return [
      { key: `mfa:${identityId}`, limit: this.#options.usernameFailures },
      { key: `address:${address}`, limit: this.#options.addressFailures },
    ];
  }

  /** Runs `attempt` after every earlier attempt on the same key has finished. */
  async oneAtATime<T>(key: string, attempt: () => Promise<T>): Promise<T> {
    const queue = this.#tails.get(key) ?? { tail: Promise.resolve(), waiting: 0 };
    if (queue.waiting >= MAX_WAITING) throw ApiError.withMessage('RATE_LIMITED', 'too many login attempts are waiting for this account');
    let release!: () => void;
    const previous = queue.tail;
    queue.tail = new Promise<void>((resolve) => (release = resolve));
    queue.waiting++;
    this.#tails.set(key, queue);
    try {
      await previous;
      return await attempt();
    } finally {
      release();
      if (--queue.waiting === 0) this.#tails.delete(key);
    }
  }

  /**
   * 429 RATE_LIMITED (with Retry-After) when any key has no failures left in its current window; otherwise the keys
   * that have failures counted, so a success clears only what exists.
   */
  async check(keys: readonly ThrottleKey[], reply?: FastifyReply): Promise<ReadonlySet<string>> {
    const now = formatTimestamp(this.#options.clock());
    const rows = await this.#options.store.read((db) => openFailureWindows(db, keys.map((k) => k.key), now));
    const exhausted = rows.filter((row) => Number(row.failures) >= (keys.find((k) => k.key === row.key)?.limit ?? Infinity));
    if (exhausted.length === 0) return new Set(rows.map((row) => row.key));
    const endsAt = Math.max(...exhausted.map((row) => Date.parse(row.windowEndsAt)));
    void reply?.header('retry-after', String(Math.max(1, Math.ceil((endsAt - Date.parse(now)) / 1000))));
    throw ApiError.withMessage('RATE_LIMITED', 'too many failed attempts, try again later');
  }

  /** Counts one failure against every key; a key whose window has ended starts a new one. */
  async recordFailure(keys: readonly ThrottleKey[]): Promise<void> {
    const now = this.#options.clock();
    const at = formatTimestamp(now);
    const windowEnd = formatTimestamp(new Date(now.getTime() + this.#options.windowMs));
    await this.#options.store.transaction((tx) => countFailures(tx, keys.map((k) => k.key), at, windowEnd));
  }

  /** A success ends the count for its own key (the account's), never for a shared one such as the address. */
  async clear(key: string): Promise<void> {
    await this.#options.store.transaction((tx) => clearFailures(tx, key));
  }
}
