// The routers' links as every process shares them (migration 021): written by the process that hears of a link event
// (a report, a fault, a latency, its source router leaving), read as the network's path snapshot and the fabric API's
// link list. Only usable links are stored; a faulted one is deleted.
import type { Selectable } from 'kysely';
import { typed } from '../connection.js';
import type { FabricLinksTable } from '../schema.js';
import type { Db } from '../store.js';

export type FabricLinkRow = Selectable<FabricLinksTable>;

export interface NewFabricLink {
  id: string;
  iteration: number;
  srcRouterId: string;
  dstRouterId: string;
  protocol: string;
  dialAddress: string;
  /** ns, both ends (upstream's initial latency until measured). */
  initialLatency: number;
}

export const allFabricLinks = (db: Db): Promise<FabricLinkRow[]> =>
  typed(db).selectFrom('fabric_links').selectAll().execute();

export const fabricLink = (db: Db, id: string): Promise<FabricLinkRow | undefined> =>
  typed(db).selectFrom('fabric_links').selectAll().where('id', '=', id).executeTakeFirst();

/** A reported link (re)placed: a new one, or a newer iteration of a known one (which starts over as a fresh link). */
export async function putFabricLink(tx: Db, link: NewFabricLink): Promise<void> {
  const values = {
    iteration: link.iteration,
    src_router_id: link.srcRouterId,
    dst_router_id: link.dstRouterId,
    protocol: link.protocol,
    dial_address: link.dialAddress,
    down: 0,
    static_cost: 1,
    src_latency: link.initialLatency,
    dst_latency: link.initialLatency,
  };
  await typed(tx)
    .insertInto('fabric_links')
    .values({ id: link.id, ...values })
    .onConflict((conflict) => conflict.column('id').doUpdateSet(values))
    .execute();
}

export async function deleteFabricLink(tx: Db, id: string): Promise<void> {
  await typed(tx).deleteFrom('fabric_links').where('id', '=', id).execute();
}

/** An operator's static cost and down flag of a link (`ziti fabric update link`); false when there is no such row. */
export async function setFabricLinkAdmin(
  tx: Db,
  id: string,
  change: { staticCost?: number; down?: boolean },
): Promise<boolean> {
  const set = {
    ...(change.staticCost === undefined ? {} : { static_cost: change.staticCost }),
    ...(change.down === undefined ? {} : { down: change.down ? 1 : 0 }),
  };
  if (Object.keys(set).length === 0) return (await fabricLink(tx, id)) !== undefined;
  const result = await typed(tx).updateTable('fabric_links').set(set).where('id', '=', id).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** One end's measured latencies (ns) of its links: the source's or the destination's column, by which end it is. */
export async function setFabricLinkLatencies(
  tx: Db,
  routerId: string,
  latencies: ReadonlyMap<string, number>,
): Promise<void> {
  for (const [id, latency] of latencies) {
    await typed(tx)
      .updateTable('fabric_links')
      .set({ src_latency: latency })
      .where('id', '=', id)
      .where('src_router_id', '=', routerId)
      .execute();
    await typed(tx)
      .updateTable('fabric_links')
      .set({ dst_latency: latency })
      .where('id', '=', id)
      .where('dst_router_id', '=', routerId)
      .execute();
  }
}

/** A router online on a live instance, as the path snapshot and its peers need it. */
export interface OnlineRouterRow {
  routerId: string;
  instanceId: string;
  connectedAt: string;
  /** JSON as router_presence keeps them (the hello's version info and link listeners). */
  versionInfo: string | null;
  linkListeners: string | null;
  cost: number;
  noTraversal: boolean;
}

/** Every router held by an instance seen since `since`. */
export async function onlineRouters(db: Db, since: string): Promise<OnlineRouterRow[]> {
  const rows = await typed(db)
    .selectFrom('live_router_presence')
    .innerJoin('controller_instances', 'controller_instances.id', 'live_router_presence.instance_id')
    .innerJoin('routers', 'routers.id', 'live_router_presence.router_id')
    .select([
      'live_router_presence.router_id',
      'live_router_presence.instance_id',
      'live_router_presence.connected_at',
      'live_router_presence.version_info',
      'live_router_presence.link_listeners',
      'routers.cost',
      'routers.no_traversal',
    ])
    .where('controller_instances.last_seen_at', '>=', since)
    .execute();
  return rows.map((row) => ({
    routerId: row.router_id,
    // The inner join on controller_instances.id leaves no null instance.
    instanceId: row.instance_id ?? '',
    connectedAt: row.connected_at ?? '',
    versionInfo: row.version_info,
    linkListeners: row.link_listeners,
    cost: row.cost,
    noTraversal: row.no_traversal === 1,
  }));
}
