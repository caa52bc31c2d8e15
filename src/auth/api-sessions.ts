// API sessions: creation, lookup by token with idle expiry, and activity kept in memory and flushed in batches
// so that an authenticated request never writes to the database (ziti controller/env/appenv.go, §3.5). The stored
// activity is what every instance on the database decides expiry from; each adds only what it saw itself.
import { formatTimestamp, type Clock } from '../lib/clock.js';
import type { IdGenerators } from '../lib/ids.js';
import type { CallerSession } from '../http/request-context.js';
import { writeAreas, type Db, type Store } from '../store/store.js';
import {
  apiSessionByToken,
  deleteIdleApiSessions,
  hasIdleApiSessions,
  insertApiSession as storeApiSession,
  recordApiSessionActivity,
  type ApiSessionRow,
} from '../store/queries/api-sessions.js';
import { ReadCache } from '../store/read-cache.js';
import { recordEntityChange } from '../events/entity-change-log.js';
import { apiSessionState, recordSessionsEnded } from '../events/edge-session-events.js';
import { sessionsOfIdleApiSessions } from '../store/queries/sessions.js';
import { currentChangeContext } from '../lib/change-context.js';
import { changeKeys, readKeys } from '../store/changes.js';
import type { ChangeKey } from '../store/store.js';
import { outstandingAuthQueries, totpQueries, type AuthQuery } from './auth-queries.js';
import type { ExternalJwtVerifier } from './ext-jwt/ext-jwt-verifier.js';
import { disabledStateOf, isIdentityDisabled, type DisabledState } from './identity-disable.js';

export interface NewApiSession {
  identityId: string;
  /** None for a router's own tunneler, which authenticates as its router (fabric/tunnel/tunnel-identity.ts). */
  authenticatorId: string | null;
  ipAddress: string | null;
  configTypes: string[];
  /** The identity has verified MFA: the session must pass it (docs/reference/pki-enrollment-auth.md §4.5). */
  isMfaRequired: boolean;
}

export async function insertApiSession(
  tx: Db,
  clock: Clock,
  ids: IdGenerators,
  input: NewApiSession,
): Promise<ApiSessionRow> {
  const now = clock();
  const at = formatTimestamp(now);
  const row: ApiSessionRow = {
    id: ids.cuid(now),
    token: ids.token(),
    identity_id: input.identityId,
    authenticator_id: input.authenticatorId,
    ip_address: input.ipAddress,
    config_types: JSON.stringify(input.configTypes),
    created_at: at,
    updated_at: at,
    last_activity_at: at,
    is_mfa_required: input.isMfaRequired ? 1 : 0,
    is_mfa_complete: 0,
    mfa_completed_at: null,
    tags: '{}',
    is_system: 0,
  };
  await storeApiSession(tx, row);
  // upstream attributes a login's API session to the identity logging in.
  const context = currentChangeContext();
  await recordEntityChange(tx, {
    context: { ...context, author: { type: 'identity', id: input.identityId } },
    changeType: 'created',
    entityType: 'apiSessions',
    entityId: row.id,
    after: apiSessionState(row),
  });
  return row;
}

interface SessionLookup {
  id: string;
  identityId: string;
  /** The stored last activity, parsed once rather than on every request. */
  lastActivityMs: number;
  isAdmin: boolean;
  disabled: DisabledState;
  isMfaRequired: boolean;
  isMfaComplete: boolean;
  requireTotp: boolean;
  requiredExtJwtSigner: string | null;
  configTypes: string | null;
}

export interface ApiSessionsOptions {
  store: Store;
  clock: Clock;
  timeoutMs: number;
  /** Where a failed background flush is reported (it is retried on the next tick). */
  onFlushError: (error: unknown) => void;
  /** Checks the external JWTs a policy's secondary factor asks for, on every request. */
  externalJwts: ExternalJwtVerifier;
}

/**
 * How often activity kept in memory is written. Every instance on the database decides a session's expiry from the
 * stored last activity (plus what it saw itself), so a session used only on another instance is judged at most
 * this much behind; the minimum idle timeout is 1 minute.
 */
const ACTIVITY_FLUSH_MS = 10_000;
/** Idle sessions are deleted every this many flushes (90 s). */
const FLUSHES_PER_SWEEP = 9;

/**
 * A session's lookup reads its row, its identity's and its auth policy's (apiSessionByToken); an unknown token
 * stays unknown until an API session is made anywhere.
 */
const lookupDependsOn = (found: SessionLookup | undefined): ChangeKey[] =>
  found ? [...changeKeys.ofIdentity(found.identityId), ...readKeys.authPolicies] : readKeys.apiSessions;

/** Session lookup, in-memory activity and the periodic flush + expiry enforcement. */
export class ApiSessions {
  readonly #options: ApiSessionsOptions;
  /** apiSessionId → last activity not yet written. */
  readonly #activity = new Map<string, Date>();
  readonly #lookups: ReadCache<SessionLookup | undefined>;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: ApiSessionsOptions) {
    this.#options = options;
    this.#lookups = new ReadCache(options.store, 100_000);
  }

  get timeoutMs(): number {
    return this.#options.timeoutMs;
  }

  /**
   * The caller behind a token, with the secondary factors still outstanding for this request (`bearerTokens` are
   * the request's `Authorization: Bearer` values); undefined when the token is unknown, the session has lapsed or
   * its identity is disabled. Answered at once, without a promise, when the session is in memory, current and
   * needs no external JWT checked (most requests; the promise is then already settled).
   */
  resolve(token: string, bearerTokens: readonly string[] = []): Promise<CallerSession | undefined> {
    const known = this.#resolveKnown(token);
    return known === 'read' ? this.#resolveReading(token, bearerTokens) : Promise.resolve(known);
  }

  /** The caller from memory alone, or 'read' when the store must be asked. */
  #resolveKnown(token: string): CallerSession | undefined | 'read' {
    const cached = this.#lookups.peek(token);
    if (cached) {
      const found = cached.value;
      if (!found) return undefined;
      const now = this.#options.clock();
      if (this.#expiresAtMs(found.id, found.lastActivityMs) > now.getTime() && found.requiredExtJwtSigner === null) {
        if (isIdentityDisabled(found.disabled, now)) return undefined;
        this.#activity.set(found.id, now);
        return this.#callerSession(found, token, now, totpQueries(found));
      }
    }
    return 'read';
  }

  async #resolveReading(token: string, bearerTokens: readonly string[]): Promise<CallerSession | undefined> {
    let found = await this.#lookups.get(token, lookupDependsOn, () => this.#lookup(token));
    if (!found) return undefined;
    const now = this.#options.clock();
    if (this.#expiresAtMs(found.id, found.lastActivityMs) <= now.getTime()) {
      // Activity flushes are bookkeeping writes that leave caches standing: the session may have been used on
      // another instance since it was cached, so the stored activity decides before the token is refused.
      found = await this.#lookup(token);
      if (!found) return undefined;
      this.#lookups.delete(token);
      if (this.#expiresAtMs(found.id, found.lastActivityMs) <= now.getTime()) return undefined;
    }
    if (isIdentityDisabled(found.disabled, now)) return undefined;
    this.#activity.set(found.id, now);
    return this.#callerSession(
      found,
      token,
      now,
      await outstandingAuthQueries(this.#options.externalJwts, found, bearerTokens),
    );
  }

  /** The session as this request sees it. */
  #callerSession(found: SessionLookup, token: string, now: Date, authQueries: AuthQuery[]): CallerSession {
    return {
      apiSessionId: found.id,
      token,
      identityId: found.identityId,
      isAdmin: found.isAdmin,
      isPartial: authQueries.length > 0,
      configTypes: found.configTypes,
      authQueries,
      expiresAt: new Date(now.getTime() + this.timeoutMs),
      expirationSeconds: Math.floor(this.timeoutMs / 1000),
    };
  }

  /**
   * Every authenticated request needs this; it is served from memory until its identity's rows or auth policies change.
   */
  async #lookup(token: string): Promise<SessionLookup | undefined> {
    const found = await this.#options.store.read((db) => apiSessionByToken(db, token));
    return (
      found && {
        id: found.id,
        identityId: found.identity_id,
        lastActivityMs: Date.parse(found.last_activity_at),
        isAdmin: found.is_admin === 1 || found.is_default_admin === 1,
        disabled: disabledStateOf(found),
        isMfaRequired: found.is_mfa_required === 1,
        isMfaComplete: found.is_mfa_complete === 1,
        requireTotp: found.secondary_require_totp === 1,
        requiredExtJwtSigner: found.secondary_require_ext_jwt_signer || null,
        configTypes: found.config_types,
      }
    );
  }

  /** Last activity (cached or stored, whichever is later) plus the idle timeout. */
  expiresAt(apiSessionId: string, storedLastActivity: string): Date {
    return new Date(this.#expiresAtMs(apiSessionId, Date.parse(storedLastActivity)));
  }

  #expiresAtMs(apiSessionId: string, storedLastActivityMs: number): number {
    const cached = this.#activity.get(apiSessionId)?.getTime() ?? 0;
    return Math.max(cached, storedLastActivityMs) + this.timeoutMs;
  }

  lastActivity(apiSessionId: string, storedLastActivity: string): string {
    const cached = this.#activity.get(apiSessionId);
    return cached && cached.getTime() > Date.parse(storedLastActivity) ? formatTimestamp(cached) : storedLastActivity;
  }

  /**
   * Edge routers' heartbeats: their clients' sessions are in use now, though those clients send no requests here.
   * Kept in memory and written with the next flush, like a request's activity.
   */
  recordActivity(apiSessionIds: Iterable<string>): void {
    const now = this.#options.clock();
    for (const id of apiSessionIds) this.#activity.set(id, now);
  }

  forget(apiSessionId: string): void {
    this.#activity.delete(apiSessionId);
  }

  /**
   * Writes cached activity in one transaction and, with `sweep`, deletes sessions idle past the timeout. Sessions
   * used only on another instance may have activity that instance has not written yet (at most one flush interval
   * old), so the sweep leaves them that much longer.
   */
  async flush(sweep = true): Promise<void> {
    const { store, clock } = this.#options;
    // In id order: another instance flushing the same sessions locks their rows in the same order, never the reverse.
    const pending = [...this.#activity.entries()].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
    if (pending.length > 0) {
      // Bookkeeping: caches keep what they hold (resolve() looks at the stored activity before it refuses a token).
      // Each row is written by one statement and decides nothing, so it takes turns with no other write but strict
      // ones.
      await store.transaction(
        async (tx) => {
          for (const [id, at] of pending) await recordApiSessionActivity(tx, id, formatTimestamp(at));
        },
        { bookkeeping: true, touches: writeAreas.rowsOnly },
      );
      for (const [id, at] of pending) if (this.#activity.get(id) === at) this.#activity.delete(id);
    }
    if (!sweep) return;
    // Deleting sessions is a change every instance must see; looked for first, so a sweep that finds nothing idle
    // writes nothing.
    const cutoff = formatTimestamp(new Date(clock().getTime() - this.timeoutMs - ACTIVITY_FLUSH_MS));
    if (await store.read((db) => hasIdleApiSessions(db, cutoff)))
      await store.transaction(async (tx) => {
        await recordSessionsEnded(tx, await sessionsOfIdleApiSessions(tx, cutoff));
        for (const row of await deleteIdleApiSessions(tx, cutoff))
          await recordEntityChange(tx, {
            changeType: 'deleted',
            entityType: 'apiSessions',
            entityId: row.id,
            before: apiSessionState(row),
          });
      });
  }

  start(): void {
    let flushes = 0;
    const tick = () => this.flush(++flushes % FLUSHES_PER_SWEEP === 0).catch(this.#options.onFlushError);
    this.#timer = setInterval(() => void tick(), ACTIVITY_FLUSH_MS);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.flush();
  }
}
