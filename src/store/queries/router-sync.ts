// What edge routers are told and what they tell us (issue 22): the API sessions a router may know with the
// certificate fingerprints its SDK clients may present, the change feed (migration 019) each process delivers
// from, and what a router's edge hello and sync reached (the router_presence columns of migration 018).
import { sql, type Kysely } from 'kysely';
import { isStorableText, typed } from '../connection.js';
import { inTextList, limitOf, preparedQuery } from '../prepared.js';
import type { Database } from '../schema.js';
import { fingerprintsOf, sessionFingerprintsJson } from './edge-sessions.js';
import type { Db } from '../store.js';
import { keysOf } from '../../lib/collections.js';

/** An API session as routers receive it (edge_ctrl_pb.ApiSession). */
export interface RouterApiSession {
  id: string;
  token: string;
  certFingerprints: string[];
}

export type FeedKind = 'apiSessionAdded' | 'apiSessionUpdated' | 'apiSessionRemoved' | 'sessionRemoved';

export interface FeedEntry {
  seq: number;
  kind: FeedKind;
  entityId: string;
  token: string;
}

/**
 * Up to `limit` API sessions with ids after `afterId` (all of them, in id order, a page at a time: the full state),
 * or those of `ids`: only fully authenticated ones (no MFA outstanding), as upstream announces them
 * (EventFullyAuthenticated, controller/db/api_session_store.go). `at` decides which session certificates are valid.
 */
export async function routerApiSessions(
  db: Db,
  at: string,
  page: { afterId: string; limit: number } | { ids: readonly string[] },
): Promise<RouterApiSession[]> {
  if ('ids' in page && page.ids.length === 0) return [];
  // One statement either way, each session with its fingerprints (every login's sync, each page of a full state).
  const rows =
    'ids' in page
      ? await selectSessionsByIds(db, page.ids, at)
      : await selectSessionsAfter(db, page.afterId, page.limit, at);
  return rows.map((row) => ({
    id: row.id,
    token: row.token,
    certFingerprints: [...new Set(fingerprintsOf(row.fingerprints))],
  }));
}

/** API sessions no MFA is outstanding for, in id order. */
const authenticatedSessions = (q: Kysely<Database>) =>
  q
    .selectFrom('api_sessions')
    .select(['id', 'token', 'identity_id'])
    .where((eb) => eb.or([eb('is_mfa_required', '=', 0), eb('is_mfa_complete', '=', 1)]))
    .orderBy('id');

/**
 * Those sessions with the fingerprints their clients may present: the identity's certificate authenticators, then
 * the session's own certificates valid at `at` (upstream's ApiSessionManager.VisitFingerprintsForApiSession).
 */
const withFingerprints = (q: Kysely<Database>, at: string) =>
  authenticatedSessions(q).select(
    sessionFingerprintsJson(q, sql.ref('api_sessions.identity_id'), sql.ref('api_sessions.id'), at, '<=').as(
      'fingerprints',
    ),
  );

const selectSessionsByIds = preparedQuery((q, ids: readonly string[], at: string) =>
  withFingerprints(q, at).where('id', 'in', inTextList(q, ids)),
);

const selectSessionsAfter = preparedQuery((q, afterId: string, limit: number, at: string) =>
  withFingerprints(q, at).where('id', '>', afterId).limit(limitOf(limit)),
);

/** The ids of the API sessions behind these tokens (a router's heartbeat); unknown tokens are left out. */
export async function apiSessionIdsByToken(db: Db, given: readonly string[]): Promise<Map<string, string>> {
  const tokens = given.filter(isStorableText);
  if (tokens.length === 0) return new Map();
  const rows = await typed(db)
    .selectFrom('api_sessions')
    .select(['id', 'token'])
    .where('token', 'in', inTextList(db, tokens))
    .execute();
  return new Map(rows.map((row) => [row.token, row.id]));
}

/** Which of these session tokens still exist (a reconnecting router validates the sessions its clients hold). */
export async function existingSessionTokens(db: Db, given: readonly string[]): Promise<Set<string>> {
  const tokens = given.filter(isStorableText);
  if (tokens.length === 0) return new Set();
  const rows = await typed(db)
    .selectFrom('sessions')
    .select('token')
    .where('token', 'in', inTextList(db, tokens))
    .execute();
  return new Set(rows.map((row) => row.token));
}

const selectFeedHead = preparedQuery(
  () => sql<{ head: number | string | null }>`SELECT max(seq) AS head FROM router_sync_feed`,
);

/** The newest entry's sequence (0 when the feed is empty). */
export async function routerSyncFeedHead(db: Db): Promise<number> {
  return Number((await selectFeedHead(db))[0]?.head ?? 0);
}

const selectFeedAfter = preparedQuery((q, afterSeq: number, limit: number) =>
  q
    .selectFrom('router_sync_feed')
    .select(['seq', 'kind', 'entity_id', 'token'])
    .where('seq', '>', afterSeq)
    .orderBy('seq')
    .limit(limitOf(limit)),
);

/** Up to `limit` entries after `afterSeq`, oldest first. */
export async function routerSyncFeedAfter(db: Db, afterSeq: number, limit: number): Promise<FeedEntry[]> {
  const rows = await selectFeedAfter(db, afterSeq, limit);
  // The feed's rows are written only by migration 019's triggers, each with one of the FeedKind names.
  return rows.map((row) => ({
    seq: Number(row.seq),
    kind: row.kind as FeedKind,
    entityId: row.entity_id,
    token: row.token,
  }));
}

/** Whether any entry up to `throughSeq` is left (pruning looks before it writes). */
export async function hasRouterSyncFeedThrough(db: Db, throughSeq: number): Promise<boolean> {
  return (
    (await typed(db)
      .selectFrom('router_sync_feed')
      .select('seq')
      .where('seq', '<=', throughSeq)
      .limit(1)
      .executeTakeFirst()) !== undefined
  );
}

export async function pruneRouterSyncFeed(tx: Db, throughSeq: number): Promise<void> {
  await typed(tx).deleteFrom('router_sync_feed').where('seq', '<=', throughSeq).execute();
}

/** What a router's edge hello and API-session sync reached; absent fields stay as stored. */
export interface RouterSyncState {
  hostname?: string;
  /** protocol → `<protocol>://<host>:<port>` */
  supportedProtocols?: Record<string, string>;
  syncStatus: string;
}

/**
 * Records a router's sync state on its presence row, creating the row if the control plane has not written it yet
 * (its connect writes are batched, and may land after this): the caller holds the router's open channel, so the state
 * is the router's current one whichever instance the row names. Online-ness (instance_id) is not touched.
 */
export async function recordRouterSync(tx: Db, routerId: string, state: RouterSyncState): Promise<void> {
  const values = {
    sync_status: state.syncStatus,
    ...(state.hostname === undefined ? {} : { hostname: state.hostname }),
    ...(state.supportedProtocols === undefined
      ? {}
      : { supported_protocols: JSON.stringify(state.supportedProtocols) }),
  };
  const columns = keysOf(values);
  // Inserted only while the router exists (it may have been deleted meanwhile).
  await typed(tx)
    .insertInto('router_presence')
    .columns(['router_id', ...columns])
    .expression((eb) =>
      eb
        .selectFrom('routers')
        .select([eb.val(routerId).as('router_id'), ...columns.map((column) => eb.val(values[column]).as(column))])
        .where('id', '=', routerId),
    )
    .onConflict((conflict) => conflict.column('router_id').doUpdateSet(values))
    .execute();
}

/** The tables whose row changes write the routers' change feed (migration 019's triggers). */
const FEED_SOURCES: ReadonlySet<string> = new Set(['api_sessions', 'api_session_certificates', 'sessions']);

/** Whether a commit that changed rows of these tables may have written the routers' change feed. */
export const writesRouterSyncFeed = (tables: ReadonlySet<string>): boolean =>
  [...tables].some((table) => FEED_SOURCES.has(table));
