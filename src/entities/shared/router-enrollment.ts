// A router's one-time enrollment: created with the router, restarted by re-enroll, shown while it is unverified.
import {
  createEnrollment,
  DEFAULT_ENROLLMENT_LIFETIME_MS,
  type EnrollmentDeps,
} from '../../enrollment/create-enrollment.js';
import { formatTimestamp } from '../../lib/clock.js';
import { clearRouterCertificate } from '../../store/queries/routers.js';
import { deleteRouterEnrollments, enrollmentsOfRouters } from '../../store/queries/enrollments.js';
import type { Db } from '../../store/store.js';

export type RouterEnrollmentMethod = 'erott' | 'trott';

export interface RouterEnrollmentFields {
  enrollmentCreatedAt: string;
  enrollmentExpiresAt: string;
  enrollmentJwt: string;
  enrollmentToken: string;
}

/** A router without an outstanding enrollment shows none of its fields (upstream's REST models: omitempty). */
export const noEnrollment: Partial<RouterEnrollmentFields> = {};

/**
 * The outstanding enrollment of each router in `routerIds` (upstream shows the first one, and only while the router
 * is unverified, `routes/edge_router_api_model.go` MapEdgeRouterToRestModel). One read for a whole page.
 */
export async function routerEnrollments(
  db: Db,
  routerIds: readonly string[],
): Promise<Map<string, RouterEnrollmentFields>> {
  const found = new Map<string, RouterEnrollmentFields>();
  if (routerIds.length === 0) return found;
  for (const row of await enrollmentsOfRouters(db, routerIds)) {
    const routerId = row.routerId!;
    if (found.has(routerId)) continue;
    found.set(routerId, {
      enrollmentCreatedAt: row.createdAt,
      enrollmentExpiresAt: row.expiresAt,
      enrollmentJwt: row.jwt,
      enrollmentToken: row.token,
    });
  }
  return found;
}

/**
 * A new erott (edge router) or trott (transit router) enrollment whose JWT names the router as `sub`, as upstream's
 * EdgeRouterManager / TransitRouterManager `Create` add one to every new router. Routers get the identities' default
 * lifetime: upstream never reads `edge.enrollment.edgeRouter.duration` (docs/reference/pki-enrollment-auth.md §2.2,
 * quirk Q14).
 */
export async function createRouterEnrollment(
  tx: Db,
  deps: EnrollmentDeps,
  routerId: string,
  method: RouterEnrollmentMethod,
): Promise<void> {
  const expiresAt = new Date(deps.clock().getTime() + DEFAULT_ENROLLMENT_LIFETIME_MS);
  await createEnrollment(tx, deps, { method, routerId, expiresAt });
}

/**
 * Re-enroll (`EdgeRouterManager.ReEnroll`): outstanding enrollments go, a fresh one replaces them, and the router's
 * certificate stops counting at once (fingerprint and PEM cleared, unverified) until it enrolls again.
 */
export async function restartRouterEnrollment(
  tx: Db,
  deps: EnrollmentDeps,
  routerId: string,
  method: RouterEnrollmentMethod,
): Promise<void> {
  await deleteRouterEnrollments(tx, routerId);
  await clearRouterCertificate(tx, routerId, formatTimestamp(deps.clock()));
  await createRouterEnrollment(tx, deps, routerId, method);
}
