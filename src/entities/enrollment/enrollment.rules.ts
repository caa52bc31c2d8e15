// Enrollment rendering: the identity or router it is for, as upstream's `enrollmentDetail` (empty parts left out).
import type { EntityRules } from '../../crud/entity-rules.js';
import { entityRef } from '../../crud/entity-mapping.js';
import { identityRefs } from '../../auth/identity-links.js';
import { edgeRouter } from '../edge-router/edge-router.definition.js';
import { router } from '../router/router.definition.js';
import { routerNames } from '../../store/queries/routers.js';

export const enrollmentRules: EntityRules = {
  async extend({ db }, entities) {
    const identityIds = entities.map((e) => e.identityId).filter((id): id is string => typeof id === 'string');
    const routerIds = [
      ...new Set(entities.map((e) => e.routerId).filter((id): id is string => typeof id === 'string')),
    ];
    const [refFor, routers] = await Promise.all([identityRefs(db, identityIds), routerNames(db, routerIds)]);
    const routerById = new Map(routers.map((row) => [row.id, row]));
    return entities.map((entity) => {
      const out: Record<string, unknown> = {};
      if (typeof entity.identityId === 'string') {
        out.identityId = entity.identityId;
        out.identity = refFor(entity.identityId);
      }
      const routerRow = typeof entity.routerId === 'string' ? routerById.get(entity.routerId) : undefined;
      if (routerRow) {
        const values = { id: routerRow.id, name: routerRow.name };
        if (routerRow.isEdge)
          Object.assign(out, { edgeRouterId: values.id, edgeRouter: entityRef(edgeRouter, values) });
        else Object.assign(out, { transitRouterId: values.id, transitRouter: entityRef(router, values) });
      }
      // Upstream always renders `username: ""`, which omitempty drops; the updb username is not shown.
      if (typeof entity.caId === 'string') out.caId = entity.caId;
      return out;
    });
  },
};
