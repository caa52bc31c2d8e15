// Throttling of failed logins for everyone, beyond any auth policy's lockout. Failures are counted per key in the
// database, so every controller on it and a restart see the same counts; a key that has used up its failures in the
// current window answers 429 RATE_LIMITED until the window ends. A password login counts against its source address,
// its username from that address and its username from every address. The last is shared by strangers, so it never
// locks the owner out: once used up, it refuses only addresses that have failed on the username themselves, which cuts
// a guesser spread over many addresses to one guess per address, while an address that never failed still logs in.
//
// Nothing is serialised: the counts are read before the expensive check (argon2id) and decided again after it. A
// failure is counted in one transaction that also reads the counts back (under its rows' locks, not a write turn),
// so it knows which failures came before it;
// one that was over the limit then is answered 429 like any refused attempt, and a success is refused when failures
// that finished during its check used up a limit. So no more failures are ever answered than the limits allow, on
// any number of processes, and concurrent logins of one account run side by side.
import type { FastifyReply } from 'fastify';
import { isIPv6 } from 'node:net';
import { ApiError } from '../errors/api-error.js';
import { formatTimestamp, type Clock } from '../lib/clock.js';
import {
  clearFailures,
  countFailures,
  openFailureWindows,
  type FailureWindow,
} from '../store/queries/login-failures.js';
import { writeAreas, type Db, type Store, type WriteOptions } from '../store/store.js';
import { mustGet } from '../lib/collections.js';

export interface ThrottleKey {
  /** `address:<ip>`, `username:<name>`, `username-from:<ip> <name>`, `mfa:<identityId>`. */
  key: string;
  /** Failures allowed per window. */
  limit: number;
  /** A key shared by strangers: used up, it refuses only callers whose failures on this other key are counted. */
  onlyFor?: string;
}

/** The keys one check counts against; the first is the caller's own (a success clears it). */
export type ThrottleKeys = readonly [own: ThrottleKey, ...shared: ThrottleKey[]];

export interface LoginThrottleOptions {
  store: Store;
  clock: Clock;
  windowMs: number;
  usernameFailures: number;
  usernameFailuresAllAddresses: number;
  addressFailures: number;
}

/** The throttle's own writes: one statement per row, which locks only that row. */
const ROW_LOCKED: WriteOptions = { bookkeeping: true, touches: writeAreas.rowsOnly };

export class LoginThrottle {
  readonly #options: LoginThrottleOptions;

  constructor(options: LoginThrottleOptions) {
    this.#options = options;
  }

  /** The keys a password login counts against; the first is the caller's own, which a success clears. */
  passwordKeys(username: string, ip: string): ThrottleKeys {
    const address = addressOf(ip);
    const own = `username-from:${address} ${username}`;
    return [
      { key: own, limit: this.#options.usernameFailures },
      { key: `username:${username}`, limit: this.#options.usernameFailuresAllAddresses, onlyFor: own },
      { key: `address:${address}`, limit: this.#options.addressFailures },
    ];
  }

  /**
   * The keys a second-factor code counts against, the identity's first: only a caller who passed the first factor
   * can try a code, so the identity's count is the caller's own.
   */
  mfaKeys(identityId: string, ip: string): ThrottleKeys {
    return [
      { key: `mfa:${identityId}`, limit: this.#options.usernameFailures },
      { key: `address:${addressOf(ip)}`, limit: this.#options.addressFailures },
    ];
  }

  /** Before the check: 429 RATE_LIMITED (with Retry-After) when a limit is used up for this caller. */
  async admit(keys: readonly ThrottleKey[], reply?: FastifyReply, db?: Db): Promise<void> {
    const windows = db
      ? await this.#windows(db, keys)
      : await this.#options.store.read((reader) => this.#windows(reader, keys));
    this.#refuseIfUsedUp(keys, windows, 0, reply);
  }

  /** What `admitWith` decides on: the open windows of these keys now, for a caller that reads them with its own. */
  windowsToRead(keys: readonly ThrottleKey[]): { keys: string[]; now: string } {
    return { keys: keys.map((k) => k.key), now: formatTimestamp(this.#options.clock()) };
  }

  /** As `admit`, from the windows `windowsToRead` named, read by the caller (a password login, with its candidate). */
  admitWith(keys: readonly ThrottleKey[], windows: readonly FailureWindow[], reply?: FastifyReply): void {
    this.#refuseIfUsedUp(keys, new Map(windows.map((row) => [row.key, row])), 0, reply);
  }

  /**
   * After a failed check: counts it (in a transaction of its own), then 429 if the failures counted before it had
   * used up a limit, so the caller learns nothing from it. Otherwise returns, and the caller answers its refusal.
   */
  async failed(keys: readonly ThrottleKey[], reply?: FastifyReply): Promise<void> {
    // No write turn (issue 26): the count's upserts lock its keys' rows, all in one order (the caller's own key,
    // the username's, the address's), so counts of a shared key take turns on its row and each reads back the
    // failures before it, while failures of different callers run at once. Bookkeeping: no kept answer reads them.
    const windows = await this.#options.store.transaction(async (tx) => {
      await this.count(tx, keys);
      return this.#windows(tx, keys);
    }, ROW_LOCKED);
    this.#refuseIfUsedUp(keys, windows, 1, reply);
  }

  /** One more failure on every key; a key whose window has ended starts a new one. */
  async count(tx: Db, keys: readonly ThrottleKey[]): Promise<void> {
    const now = this.#options.clock();
    await countFailures(
      tx,
      keys.map((k) => k.key),
      formatTimestamp(now),
      formatTimestamp(new Date(now.getTime() + this.#options.windowMs)),
    );
  }

  /**
   * After a successful check: 429 if failures that finished meanwhile used up a limit; otherwise clears the
   * caller's own count (the first key's, never a shared one such as the address's).
   */
  async succeeded(keys: ThrottleKeys, reply?: FastifyReply): Promise<void> {
    const windows = await this.#options.store.read((db) => this.#windows(db, keys));
    this.#refuseIfUsedUp(keys, windows, 0, reply);
    const own = keys[0].key;
    if (windows.has(own)) await this.#options.store.transaction((tx) => this.clear(tx, own), ROW_LOCKED);
  }

  /** A success ends the count of the caller's own key. */
  async clear(tx: Db, key: string): Promise<void> {
    await clearFailures(tx, key);
  }

  async #windows(db: Db, keys: readonly ThrottleKey[]): Promise<Map<string, FailureWindow>> {
    const rows = await openFailureWindows(
      db,
      keys.map((k) => k.key),
      formatTimestamp(this.#options.clock()),
    );
    return new Map(rows.map((row) => [row.key, row]));
  }

  /** `own`: how many of the counted failures are the caller's own attempt, which does not count against itself. */
  #refuseIfUsedUp(
    keys: readonly ThrottleKey[],
    windows: ReadonlyMap<string, FailureWindow>,
    own: 0 | 1,
    reply?: FastifyReply,
  ): void {
    const failuresBefore = (key: string) => Number(windows.get(key)?.failures ?? 0) - own;
    const endOf = (key: string) => Date.parse(mustGet(windows, key).windowEndsAt);
    let refusedUntil: number | undefined;
    for (const k of keys) {
      if (failuresBefore(k.key) < k.limit) continue;
      if (k.onlyFor !== undefined && failuresBefore(k.onlyFor) <= 0) continue;
      // Refused until this window ends, or until the caller's own count (which makes the shared key apply) does.
      const until = k.onlyFor === undefined ? endOf(k.key) : Math.min(endOf(k.key), endOf(k.onlyFor));
      refusedUntil = Math.max(refusedUntil ?? until, until);
    }
    if (refusedUntil === undefined) return;
    void reply?.header(
      'retry-after',
      String(Math.max(1, Math.ceil((refusedUntil - this.#options.clock().getTime()) / 1000))),
    );
    throw ApiError.withMessage('RATE_LIMITED', 'too many failed attempts, try again later');
  }
}

/**
 * The source a count belongs to: an IPv4 address (IPv4-mapped IPv6 included), or an IPv6 address's /64, the
 * smallest block a site is given, so one host cannot pass as 2^64 addresses.
 */
export function addressOf(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped?.[1] !== undefined) return mapped[1];
  if (!isIPv6(ip)) return ip;
  const bare = ip.toLowerCase().replace(/%.*$/, '');
  const [head = '', tail = ''] = bare.split('::');
  const left = head ? head.split(':') : [];
  const right = bare.includes('::') && tail ? tail.split(':') : [];
  // An embedded IPv4 address (`::ffff:0:1.2.3.4`, `64:ff9b::1.2.3.4`) stands for two groups.
  const width = (groups: string[]) => groups.reduce((sum, group) => sum + (group.includes('.') ? 2 : 1), 0);
  const groups = bare.includes('::')
    ? [...left, ...Array<string>(8 - width(left) - width(right)).fill('0'), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}
