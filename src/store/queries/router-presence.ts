// Router presence (migration 018): which instance holds each router's control channel, and what the router reported.
// Only the control plane writes instance_id / connected_at / version_info; the edge sync writes the other columns.
import type { ExpressionBuilder, Selectable } from 'kysely';
import { typed } from '../connection.js';
import type { Database, RouterPresenceTable } from '../schema.js';
import type { Db } from '../store.js';

export type RouterPresenceRow = Selectable<RouterPresenceTable>;

/** What the control plane checks before accepting a router's channel. */
export interface RouterForConnection {
  id: string;
  name: string;
  isEdge: boolean;
  disabled: boolean;
  fingerprint: string | null;
}

export async function routersForConnection(db: Db, ids: readonly string[]): Promise<RouterForConnection[]> {
  if (ids.length === 0) return [];
  const rows = await typed(db)
    .selectFrom('routers')
    .select(['id', 'name', 'is_edge', 'disabled', 'fingerprint'])
    .where('id', 'in', ids)
    .execute();
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    isEdge: row.is_edge === 1,
    disabled: row.disabled === 1,
    fingerprint: row.fingerprint,
  }));
}

/**
 * Presence rows of these routers (online or not), by router id, as live_router_presence shows them: `instance_id` set
 * only while that instance is alive (migration 025).
 */
export async function routerPresence(db: Db, ids: readonly string[]): Promise<Map<string, RouterPresenceRow>> {
  if (ids.length === 0) return new Map();
  const rows = await typed(db).selectFrom('live_router_presence').selectAll().where('router_id', 'in', ids).execute();
  return new Map(rows.map((row) => [row.router_id, row]));
}

/** A router is now held by `instanceId`. The sync columns are the edge sync's to write (it may already have). */
export async function markRoutersConnected(
  tx: Db,
  rows: ReadonlyArray<{
    routerId: string;
    instanceId: string;
    connectedAt: string;
    versionInfo: string;
    linkListeners: string;
  }>,
): Promise<void> {
  for (const row of rows) {
    const values = {
      instance_id: row.instanceId,
      connected_at: row.connectedAt,
      version_info: row.versionInfo,
      link_listeners: row.linkListeners,
    };
    // The router may have been deleted meanwhile: insert only while it exists.
    await typed(tx)
      .insertInto('router_presence')
      .columns(['router_id', 'instance_id', 'connected_at', 'version_info', 'link_listeners'])
      .expression((eb) =>
        eb
          .selectFrom('routers')
          .select([
            eb.val(row.routerId).as('router_id'),
            eb.val(row.instanceId).as('instance_id'),
            eb.val(row.connectedAt).as('connected_at'),
            eb.val(row.versionInfo).as('version_info'),
            eb.val(row.linkListeners).as('link_listeners'),
          ])
          .where('id', '=', row.routerId),
      )
      .onConflict((conflict) => conflict.column('router_id').doUpdateSet(values))
      .execute();
  }
}

/** These routers' channels on `instanceId` closed; a row another instance took over since is left alone. */
export async function markRoutersDisconnected(tx: Db, instanceId: string, routerIds: readonly string[]): Promise<void> {
  if (routerIds.length === 0) return;
  await typed(tx)
    .updateTable('router_presence')
    .set({ instance_id: null })
    .where('instance_id', '=', instanceId)
    .where('router_id', 'in', routerIds)
    .execute();
}

/**
 * Every router held by `instanceId` is offline (the instance stops, or its successor starts), and the links they
 * dialled go (migration 021); how many routers were held.
 */
export async function releaseInstanceRouters(tx: Db, instanceId: string): Promise<number> {
  await typed(tx)
    .deleteFrom('fabric_links')
    .where('src_router_id', 'in', (eb) =>
      eb.selectFrom('router_presence').select('router_id').where('instance_id', '=', instanceId),
    )
    .execute();
  const [result] = await typed(tx)
    .updateTable('router_presence')
    .set({ instance_id: null })
    .where('instance_id', '=', instanceId)
    .execute();
  return Number(result?.numUpdatedRows ?? 0);
}

/** A presence row held by an instance not seen since `since` (which then stopped beating). */
const heldByDeadInstance = (since: string) => (eb: ExpressionBuilder<Database, 'router_presence'>) =>
  eb.and([
    eb('router_presence.instance_id', 'is not', null),
    eb.not(
      eb.exists(
        eb
          .selectFrom('controller_instances')
          .select('id')
          .whereRef('controller_instances.id', '=', 'router_presence.instance_id')
          .where('last_seen_at', '>=', since),
      ),
    ),
  ]);

/** Whether some router is held by an instance not seen since `since` (which then stopped beating). */
export async function hasRoutersOfDeadInstances(db: Db, since: string): Promise<boolean> {
  const row = await typed(db)
    .selectFrom('router_presence')
    .select('router_id')
    .where(heldByDeadInstance(since))
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Routers held by instances not seen since `since` go offline, and the links they dialled (upstream ScanForDeadLinks). */
export async function releaseRoutersOfDeadInstances(tx: Db, since: string): Promise<void> {
  await typed(tx)
    .deleteFrom('fabric_links')
    .where('src_router_id', 'in', (eb) =>
      eb.selectFrom('router_presence').select('router_id').where(heldByDeadInstance(since)),
    )
    .execute();
  await typed(tx).updateTable('router_presence').set({ instance_id: null }).where(heldByDeadInstance(since)).execute();
}

/** The instance holding each of these routers, with the time it connected, for routers held by a live instance. */
export async function heldRouters(
  db: Db,
  ids: readonly string[],
  since: string,
): Promise<Map<string, { instanceId: string; connectedAt: string }>> {
  if (ids.length === 0) return new Map();
  const rows = await typed(db)
    .selectFrom('live_router_presence')
    .innerJoin('controller_instances', 'controller_instances.id', 'live_router_presence.instance_id')
    .select(['live_router_presence.router_id', 'live_router_presence.instance_id', 'live_router_presence.connected_at'])
    .where('live_router_presence.router_id', 'in', ids)
    .where('controller_instances.last_seen_at', '>=', since)
    .execute();
  return new Map(
    rows.map((row) => [row.router_id, { instanceId: row.instance_id!, connectedAt: row.connected_at ?? '' }]),
  );
}

/** Routers held by a live instance (any process of the cluster), by id: what `inspect connected-routers` lists. */
export async function connectedRouters(
  db: Db,
  since: string,
): Promise<{ id: string; name: string; versionInfo: string | null; connectedAt: string | null }[]> {
  const rows = await typed(db)
    .selectFrom('live_router_presence')
    .innerJoin('controller_instances', 'controller_instances.id', 'live_router_presence.instance_id')
    .innerJoin('routers', 'routers.id', 'live_router_presence.router_id')
    .select(['routers.id', 'routers.name', 'live_router_presence.version_info', 'live_router_presence.connected_at'])
    .where('controller_instances.last_seen_at', '>=', since)
    .orderBy('routers.id')
    .execute();
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    versionInfo: row.version_info,
    connectedAt: row.connected_at,
  }));
}
