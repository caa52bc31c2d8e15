// Keeps sessions in line with posture: takes clients' posture reports, and drops the sessions whose posture stops
// passing. Work follows what changed: the identity that reported, the identities queued by policy changes
// (session_posture_rechecks), and those whose MFA runs out — never a sweep over every session.
import { recordSessionsEnded } from '../events/edge-session-events.js';
import { formatTimestamp, type Clock } from '../lib/clock.js';
import { writeAreas, type Db, type Store } from '../store/store.js';
import { apiSessionIdsOf } from '../store/queries/api-sessions.js';
import {
  dequeuePostureRechecks,
  putReportedPosture,
  queuedPostureRechecks,
  queueEveryIdentityWithSessions,
  reportedPostureIdentities,
} from '../store/queries/posture.js';
import { deleteSessions, sessionsOfIdentity, sessionsWithIds } from '../store/queries/sessions.js';
import { markServiceListChanged } from '../store/queries/service-lists.js';
import { checkLastUpdatedAt, isCheckPassing, type PostureCheckRecord } from './check-evaluation.js';
import { policyPostureChecks, postureChecksOfIdentity } from './policy-checks.js';
import { postureViewFor, readMfaState, type MfaStateReader, type PostureSources } from './posture-inputs.js';
import {
  addFailedServiceRequest,
  applyResponses,
  loadPosture,
  serializePosture,
  updatePosture,
  type FailedServiceRequest,
  type PostureResponse,
} from './reported-posture.js';
import { evaluateSessionPosture } from './session-posture.js';
import { mustAt } from '../lib/collections.js';

export interface PostureMonitorOptions {
  store: Store;
  clock: Clock;
  /** Where a failed background sweep is reported (it is retried on the next tick). */
  onError: (error: unknown) => void;
  /** The MFA seam; `readMfaState` (always "not enrolled" until MFA lands) unless another is given. */
  readMfaState?: MfaStateReader;
}

/** Identities re-evaluated per transaction, so one sweep never holds the writer for long. */
const BATCH = 200;
/** Per-API-session data of ended sessions and data of deleted identities are dropped every this many sweeps. */
const PRUNE_EVERY = 12;
/** Identities whose reports one prune transaction looks at. */
const PRUNE_CHUNK = 500;

export class PostureMonitor implements PostureSources {
  readonly readMfaState: MfaStateReader;
  readonly #options: PostureMonitorOptions;
  /** identity id → when one of its sessions may start failing (an MFA timeout or prompt running out). */
  readonly #due = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;
  /** Sweeps run one after another: a sweep asked for while one runs starts after it, so it sees every change. */
  #sweeps: Promise<void> = Promise.resolve();
  #pending = 0;
  #sweepCount = 0;

  constructor(options: PostureMonitorOptions) {
    this.#options = options;
    this.readMfaState = options.readMfaState ?? readMfaState;
  }

  /**
   * Records a client's posture responses. When that changes what one of the identity's checks answers for this API
   * session, its service list is marked changed (SDKs refresh their services) and its sessions are evaluated again.
   */
  async record(identityId: string, apiSessionId: string, responses: readonly PostureResponse[]): Promise<void> {
    const { store, clock } = this.#options;
    const now = clock();
    const changed = await store.transaction(
      async (tx) => {
        const checks = await postureChecksOfIdentity(tx, identityId);
        const before = await this.#outcomes(tx, checks, identityId, apiSessionId, now);
        await updatePosture(tx, identityId, now, (data) => applyResponses(data, apiSessionId, responses, now));
        return before !== (await this.#outcomes(tx, checks, identityId, apiSessionId, now));
        // Bookkeeping: no kept answer reads reported posture; a change of outcome moves the generation below.
      },
      { bookkeeping: true, touches: [writeAreas.identity(identityId)] },
    );
    if (changed) await this.postureChanged(identityId);
  }

  /** Keeps a refused session request for admins (`GET /identities/{id}/failed-service-requests`). */
  async recordFailedServiceRequest(identityId: string, failure: FailedServiceRequest): Promise<void> {
    const now = this.#options.clock();
    await this.#options.store.transaction(
      (tx) => updatePosture(tx, identityId, now, (data) => addFailedServiceRequest(data, failure)),
      {
        bookkeeping: true,
        touches: [writeAreas.identity(identityId)],
      },
    );
  }

  /**
   * Something the identity's posture depends on changed outside a posture response (MFA passed or removed): its
   * service list changes and its sessions are evaluated again now.
   */
  async postureChanged(identityId: string): Promise<void> {
    const now = this.#options.clock();
    await this.#options.store.transaction(
      async (tx) => {
        await markServiceListChanged(tx, identityId, formatTimestamp(now));
        await this.#recheck(tx, [identityId], now);
      },
      { touches: [writeAreas.identity(identityId)] },
    );
  }

  /** A session created now passes posture until `at` at the latest (MFA): look at it again then. */
  recheckAt(identityId: string, at: Date | undefined): void {
    if (!at) return;
    const known = this.#due.get(identityId);
    if (known === undefined || at.getTime() < known) this.#due.set(identityId, at.getTime());
  }

  /** Evaluates the sessions of queued identities and of those whose MFA ran out; drops the failing ones. */
  sweep(): Promise<void> {
    this.#pending++;
    const next = this.#sweeps.then(() => this.#sweep()).finally(() => this.#pending--);
    this.#sweeps = next.catch(() => undefined);
    return next;
  }

  async #sweep(): Promise<void> {
    const { store, clock } = this.#options;
    const now = clock();
    let identities = [...this.#due].filter(([, at]) => at <= now.getTime()).map(([id]) => id);
    for (const id of identities) this.#due.delete(id);
    for (;;) {
      // Read first, so an idle sweep writes nothing (a write would also expire every cached read). The ids are
      // removed from the queue before they are evaluated: a change queued after that is evaluated too.
      const queued = await store.read((db) => queuedPostureRechecks(db, BATCH));
      if (queued.length > 0) await store.transaction((tx) => dequeuePostureRechecks(tx, queued));
      const batch = [...new Set([...identities, ...queued])];
      identities = [];
      if (batch.length === 0) break;
      for (let start = 0; start < batch.length; start += BATCH) {
        await store.transaction((tx) => this.#recheck(tx, batch.slice(start, start + BATCH), now));
      }
    }
    if (++this.#sweepCount % PRUNE_EVERY === 0) await this.prune();
  }

  /**
   * Drops the per-API-session data of ended API sessions (a deleted identity's reports go with it, by the foreign
   * key), a chunk of identities per transaction.
   */
  async prune(): Promise<void> {
    const { store, clock } = this.#options;
    for (let after = ''; ;) {
      const ids = await store.read((db) => reportedPostureIdentities(db, after, PRUNE_CHUNK));
      if (ids.length === 0) return;
      after = mustAt(ids, -1);
      await store.transaction(async (tx) => {
        const live = new Set(await apiSessionIdsOf(tx, ids));
        for (const id of ids) {
          const data = await loadPosture(tx, id);
          const ended = [...(data?.endpointStates.keys() ?? [])].filter((apiSessionId) => !live.has(apiSessionId));
          if (!data || ended.length === 0) continue;
          for (const apiSessionId of ended) data.endpointStates.delete(apiSessionId);
          await putReportedPosture(tx, id, serializePosture(data), formatTimestamp(clock()));
        }
      });
    }
  }

  /** Every check's outcome (and MFA prompt time) for one API session, as one comparable text. */
  async #outcomes(
    db: Db,
    checks: readonly PostureCheckRecord[],
    identityId: string,
    apiSessionId: string,
    now: Date,
  ): Promise<string> {
    if (checks.length === 0) return '';
    const view = await postureViewFor(db, this, identityId, apiSessionId, now);
    return checks
      .map((check) => `${check.id}:${isCheckPassing(check, view)}:${checkLastUpdatedAt(check, view)?.getTime() ?? ''}`)
      .join(',');
  }

  /** Evaluates every session of these identities; deletes those whose posture fails and marks their lists changed. */
  async #recheck(tx: Db, identityIds: readonly string[], now: Date): Promise<void> {
    for (const identityId of identityIds) {
      this.#due.delete(identityId);
      const sessions = await sessionsOfIdentity(tx, identityId);
      if (sessions.length === 0) continue;
      const policies = await policyPostureChecks(
        tx,
        identityId,
        sessions.map((session) => session.serviceId),
      );
      const views = new Map<string, Awaited<ReturnType<typeof postureViewFor>>>();
      const failing: string[] = [];
      for (const session of sessions) {
        let view = views.get(session.apiSessionId);
        if (!view)
          views.set(
            session.apiSessionId,
            (view = await postureViewFor(tx, this, identityId, session.apiSessionId, now)),
          );
        const result = evaluateSessionPosture(policies.get(session.serviceId) ?? [], session.type, view);
        if (!result.passed) failing.push(session.id);
        else this.recheckAt(identityId, result.failsAt);
      }
      if (failing.length === 0) continue;
      // Recorded as upstream's session store records a delete: entityChange and edge.sessions deleted.
      await recordSessionsEnded(tx, await sessionsWithIds(tx, failing));
      await deleteSessions(tx, failing);
      await markServiceListChanged(tx, identityId, formatTimestamp(now));
    }
  }

  /**
   * Starts the periodic sweep, at upstream's 5 s cadence. Every identity holding sessions is queued once, so sessions
   * are measured against the checks as they stand at start (reports are kept in the database, and SDKs, seeing the
   * new instance id, report again).
   */
  async start(intervalMs = 5_000): Promise<void> {
    await this.#options.store.transaction(queueEveryIdentityWithSessions);
    // A tick while a sweep is still running is skipped rather than queued.
    this.#timer = setInterval(() => {
      if (this.#pending === 0) this.sweep().catch(this.#options.onError);
    }, intervalMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#sweeps;
  }
}
