// Router rules: edge routers are read-only through /routers, deleting one still cleans up, new routers get a trott
// enrollment, computed fields.
import { ApiError } from '../../errors/api-error.js';
import { formatTimestamp } from '../../lib/clock.js';
import type { EntityRules } from '../../crud/entity-rules.js';
import { createRouterEnrollment, noEnrollment, routerEnrollments } from '../shared/router-enrollment.js';
import { removeTunnelerEntities } from '../shared/tunneler-entities.js';
import { withPolicyLinks } from '../shared/policy-links.rules.js';
import { edgeRouterLiveStates } from '../../policy/session-edge-routers.js';
import { mustGet } from '../../lib/collections.js';

const ownRules: EntityRules = {
  /** An edge router has no transit data, so upstream refuses to update it here (`TransitRouterManager.Update`, IsBase). */
  validate(_context, change) {
    if (change.op !== 'create' && change.before?.isEdge === true)
      return Promise.reject(new ApiError('CAN_NOT_UPDATE_ROUTER'));
    return Promise.resolve();
  },

  /**
   * Upstream deletes the whole router whichever path is used, so an edge router's tunneler entities go too. Both
   * paths create transit routers, each with a trott enrollment (`model/transit_router_manager.go` Create).
   */
  async afterWrite({ tx, deps }, change) {
    if (change.op === 'delete' && change.before?.isEdge === true)
      await removeTunnelerEntities(tx, change.id, formatTimestamp(deps.clock()));
    if (change.op === 'create') await createRouterEnrollment(tx, deps, change.id, 'trott');
  },

  /**
   * Online while an instance holds the router's control channel. A router without transit data (an edge router)
   * is reported verified, as upstream's transit router store reports base routers.
   */
  async extend({ db }, routers) {
    const pending = routers.filter((r) => r.isEdge !== true && r.isVerified !== true).map((r) => r.id);
    const enrollments = await routerEnrollments(db, pending);
    const states = await edgeRouterLiveStates(
      db,
      routers.map((router) => router.id),
    );
    return routers.map((router) => ({
      isOnline: mustGet(states, router.id).isOnline,
      isVerified: router.isEdge === true || router.isVerified === true,
      ...(enrollments.get(router.id) ?? noEnrollment),
    }));
  },
};

export const routerRules: EntityRules = withPolicyLinks('edgeRouter', ownRules, (router) => router.isEdge === true);
