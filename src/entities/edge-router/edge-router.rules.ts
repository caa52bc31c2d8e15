// Edge router rules: only edge rows count, tunneler side effects, the erott enrollment a new
// router gets, live-state fields.
import { ApiError } from '../../errors/api-error.js';
import { formatTimestamp } from '../../lib/clock.js';
import type { EntityRules, EntityValues } from '../../crud/entity-rules.js';
import { createRouterEnrollment, noEnrollment, routerEnrollments } from '../shared/router-enrollment.js';
import { removeTunnelerEntities, syncTunnelerEntities } from '../shared/tunneler-entities.js';
import { withPolicyLinks } from '../shared/policy-links.rules.js';
import { edgeRouterLiveStates } from '../../policy/session-edge-routers.js';

/** A transit router shares the table but is no edge router: upstream's edge router store does not find it. */
export function requireEdgeRouter(values: EntityValues): EntityValues {
  if (values.isEdge !== true) throw ApiError.notFound('router', values.id);
  return values;
}

const ownRules: EntityRules = {
  validate(_context, change) {
    if (change.op === 'create') change.after.isEdge = true;
    else requireEdgeRouter(change.before);
    return Promise.resolve();
  },

  beforeDelete(_context, existing) {
    requireEdgeRouter(existing);
    return Promise.resolve();
  },

  async afterWrite({ tx, deps }, change) {
    const at = formatTimestamp(deps.clock());
    if (change.op === 'delete') await removeTunnelerEntities(tx, change.id, at);
    else await syncTunnelerEntities(tx, at, change.before, change.after);
    // Every new edge router waits for its erott enrollment (`model/edge_router_manager.go` Create).
    if (change.op === 'create') await createRouterEnrollment(tx, deps, change.id, 'erott');
  },

  async extend({ db }, routers) {
    const enrollments = await routerEnrollments(
      db,
      routers.filter((r) => r.isVerified !== true).map((r) => r.id),
    );
    const states = await edgeRouterLiveStates(
      db,
      routers.map((router) => router.id),
    );
    return routers.map((router) => ({
      ...states.get(router.id),
      appData: router.appData ?? {},
      // Upstream maps `stringz.OrEmpty(Fingerprint)` into a non-pointer `omitempty` field: an edge router that has
      // not enrolled has no fingerprint key at all (routers and transit routers show null).
      ...(router.fingerprint ? {} : { fingerprint: undefined }),
      ...(enrollments.get(router.id) ?? noEnrollment),
    }));
  },
};

export const edgeRouterRules: EntityRules = withPolicyLinks('edgeRouter', ownRules);
