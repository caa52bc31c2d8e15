// What committed writes changed, by change key (issue 26): kept answers depend on the keys of what they read and are
// dropped only when one of those moved, here or (once `Store.refresh` has looked) on another instance.
//
// Keys: `table:<name>` moves with every commit that wrote the table; `identity:<id>` with every commit that wrote
// rows of one identity's own (IDENTITY_OWNED) while naming that identity among its write areas; `identity:*` with
// one that wrote such rows without naming whose (a strict write: an admin's change), which so counts as every
// identity's. An answer about one identity depends on that identity's key and `identity:*` instead of the owned
// tables, so a login or a logout drops its own identity's answers and nobody else's.
import { LruMap } from '../lib/lru-map.js';
import type { ChangeClock, ChangeKey, TableName, WriteOptions } from './store.js';

const ANY_IDENTITY: ChangeKey = 'identity:*';

export const changeKeys = {
  table: (name: TableName): ChangeKey => `table:${name}`,
  identity: (identityId: string): ChangeKey => `identity:${identityId}`,
  anyIdentity: ANY_IDENTITY,
  /** What an answer about one identity depends on for the tables that identity owns: its key and the strict writes'. */
  ofIdentity: (identityId: string): ChangeKey[] => [`identity:${identityId}`, 'identity:*'],
  tables: (...names: TableName[]): ChangeKey[] => names.map((name) => `table:${name}` as const),
};

/** What callers' kept answers read, named for what they are about: the store spells the tables behind each. */
export const readKeys = {
  /** The routers' rows (deleted, disabled, re-enrolled). */
  routers: changeKeys.tables('routers'),
  /** The routers' rows and which instance holds each. */
  routersHeld: changeKeys.tables('routers', 'router_presence'),
  /** The shared network: links, where routers are, the routers themselves. */
  network: changeKeys.tables('fabric_links', 'router_presence', 'routers'),
  authPolicies: changeKeys.tables('auth_policies'),
  apiSessions: changeKeys.tables('api_sessions'),
  configTypes: changeKeys.tables('config_types'),
  /** The third-party CAs (certificate logins' roots). */
  cas: changeKeys.tables('cas'),
  /** An identity's own view beyond its own rows: its auth policy and the CAs. */
  currentIdentity: changeKeys.tables('auth_policies', 'cas'),
  /** The identity list: identities, their attributes and everything their envelopes show. */
  identities: changeKeys.tables(
    'identities',
    'identity_role_attributes',
    'authenticators',
    'api_sessions',
    'auth_policies',
    'mfas',
    'enrollments',
    'cas',
  ),
};

/**
 * Tables whose every row belongs to one identity (the identity's row itself, its credentials, API sessions, MFA,
 * enrollments, posture and service-list marks). Writes that name identity areas (WriteOptions) change only these
 * identities' rows of them: the claim the write areas already make.
 */
export const IDENTITY_OWNED: ReadonlySet<string> = new Set<TableName>([
  'identities',
  'authenticators',
  'api_sessions',
  'api_session_certificates',
  'mfas',
  'enrollments',
  'reported_posture',
  'identity_traces',
  'identity_service_updates',
  'identity_service_configs',
  'sessions',
]);

/** Tables no kept answer reads and whose writes so move nothing: the store's own and the policy engine's scratch rows. */
const UNWATCHED: ReadonlySet<string> = new Set([
  'policy_delta',
  'cluster_changes',
  'cluster_changes_pruned',
  'schema_migrations',
  'set',
]);

/**
 * The tables a statement may write, from its text: every `INSERT … INTO t`, `UPDATE t`, `DELETE FROM t` (in CTEs
 * too). It errs only towards more (`DO UPDATE SET` reads as a table `set`, ignored): a table missed would leave
 * answers stale, one too many only drops them once more. Tables written by triggers (the routers' change feed) are
 * written only with tables named here and read by no kept answer.
 */
export function writtenTables(sqlText: string): readonly string[] {
  if (sqlText.length > KEPT_TEXT_LENGTH) return tablesWritten(sqlText);
  let tables = tablesByText.get(sqlText);
  if (!tables) tablesByText.set(sqlText, (tables = tablesWritten(sqlText)));
  return tables;
}

/**
 * Statements' texts are few (the code's shapes), and every statement of a write transaction asks: kept by text, but
 * not the long texts of bulk writes (a value list per row), which are many and would make the map large.
 */
const tablesByText = new LruMap<string, readonly string[]>(2000);
const KEPT_TEXT_LENGTH = 4096;

function tablesWritten(sqlText: string): readonly string[] {
  if (!MAY_WRITE.test(sqlText)) return [];
  const tables: string[] = [];
  for (const [, name] of sqlText.matchAll(WRITES)) {
    const table = name?.toLowerCase();
    if (table !== undefined && !UNWATCHED.has(table)) tables.push(table);
  }
  return tables;
}

const MAY_WRITE = /\b(?:insert|update|delete|replace)\b/i;
const WRITES = /\b(?:into|update|delete\s+from)\s+"?([A-Za-z_][A-Za-z0-9_]*)"?/gi;

/**
 * Adds to `into` the tables a statement that ran wrote: none when it changed no row (a mark that matched nobody,
 * ON CONFLICT DO NOTHING), unless it names several (a CTE's writes are not in its count).
 */
export function noteWrites(tables: readonly string[], rowsChanged: number | null | undefined, into: Set<string>): void {
  if (tables.length === 0 || (tables.length === 1 && rowsChanged === 0)) return;
  for (const table of tables) into.add(table);
}

/** The keys a commit that wrote `tables` moves (none for bookkeeping writes: nothing any cache holds changed). */
export function commitKeys(tables: ReadonlySet<string>, options: WriteOptions | undefined): ChangeKey[] {
  if (options?.bookkeeping === true || tables.size === 0) return [];
  const keys = new Set<ChangeKey>();
  let ownsRows = false;
  for (const table of tables) {
    keys.add(`table:${table}`);
    if (IDENTITY_OWNED.has(table)) ownsRows = true;
  }
  if (ownsRows) {
    // The identity areas are spelled as the keys are (writeAreas.identity), so the one is the other.
    const named = [...(options?.touches ?? []), ...(options?.reads ?? [])].filter(isIdentityKey);
    for (const area of named.length > 0 ? named : [ANY_IDENTITY]) keys.add(area);
  }
  return [...keys];
}

const isIdentityKey = (area: string): area is `identity:${string}` => area.startsWith('identity:');

/** Keys remembered at most; past that everything counts as moved once (forgetting a key must not hide a move). */
const KEYS_KEPT = 100_000;

/** The stores' own side of the clock: they move keys as commits are made or seen. */
export class Changes implements ChangeClock {
  #clock = 0;
  /** Everything moved at this point (the start, a change log an instance could no longer follow, the map was full). */
  #all = 0;
  readonly #moves = new Map<string, number>();
  readonly #commitListeners: ((tables: ReadonlySet<string>) => void)[] = [];

  now(): number {
    return this.#clock;
  }

  get latest(): number {
    return this.#clock;
  }

  changedSince(keys: readonly ChangeKey[], since: number): boolean {
    if (this.#all > since) return true;
    for (const key of keys) if ((this.#moves.get(key) ?? 0) > since) return true;
    return false;
  }

  moved(keys: readonly string[]): void {
    if (keys.length === 0) return;
    const at = ++this.#clock;
    for (const key of keys) this.#moves.set(key, at);
    if (this.#moves.size > KEYS_KEPT) this.movedAll();
  }

  onLocalCommit(listener: (tables: ReadonlySet<string>) => void): void {
    this.#commitListeners.push(listener);
  }

  /** A write transaction of this process committed, having changed rows of these tables. */
  committedHere(tables: ReadonlySet<string>): void {
    if (tables.size === 0) return;
    for (const listener of this.#commitListeners) listener(tables);
  }

  movedAll(): void {
    this.#moves.clear();
    this.#all = ++this.#clock;
  }
}
