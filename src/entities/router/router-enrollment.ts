// The enrollment fields a router's detail shows while it is not verified: the outstanding erott / trott enrollment.
import type { Db } from '../../store/store.js';

export interface RouterEnrollmentFields {
  enrollmentCreatedAt: string | null;
  enrollmentExpiresAt: string | null;
  enrollmentJwt: string | null;
  enrollmentToken: string | null;
}

export const noEnrollment: RouterEnrollmentFields = {
  enrollmentCreatedAt: null,
  enrollmentExpiresAt: null,
  enrollmentJwt: null,
  enrollmentToken: null,
};

/**
 * The outstanding enrollment of each router in `routerIds` (upstream shows the first one, and only while the router
 * is unverified, `routes/edge_router_api_model.go` MapEdgeRouterToRestModel). No enrollment exists yet: the PKI
 * issue adds an `enrollments` table with a `router_id` column (REFERENCES routers(id) ON DELETE CASCADE, one column
 * for edge and transit routers since they share the `routers` table), creates an erott / trott row when a router is
 * created, and replaces the `rows` line with (the parameter becoming `db`)
 *   const rows = await db.selectFrom('enrollments').select(['router_id', 'created_at', 'expires_at', 'jwt', 'token'])
 *     .where('router_id', 'in', routerIds).orderBy('created_at').execute();
 * Both router definitions read the fields from here, so nothing else changes.
 */
export async function routerEnrollments(_db: Db, routerIds: readonly string[]): Promise<Map<string, RouterEnrollmentFields>> {
  const found = new Map<string, RouterEnrollmentFields>();
  if (routerIds.length === 0) return found;
  const rows: Record<string, unknown>[] = await Promise.resolve([]);
  for (const row of rows) {
    const routerId = String(row.router_id);
    if (found.has(routerId)) continue;
    found.set(routerId, {
      enrollmentCreatedAt: row.created_at as string,
      enrollmentExpiresAt: row.expires_at as string,
      enrollmentJwt: row.jwt as string,
      enrollmentToken: row.token as string,
    });
  }
  return found;
}
