// A router deleted from code, with the rules its REST delete runs (its edge-router or transit-router definition):
// a router decommissioning itself (fabric/ctrl/router-drain.ts), as upstream's decommission deletes it.
import type { EntityDeps } from '../../app-deps.js';
import { removeEntity } from '../../crud/entity-writes.js';
import { ApiError } from '../../errors/api-error.js';
import { routerIsEdge } from '../../store/queries/routers.js';
import { edgeRouter } from '../edge-router/edge-router.definition.js';
import { router } from './router.definition.js';

export async function removeRouterById(deps: EntityDeps, routerId: string): Promise<void> {
  const isEdge = await deps.store.read((db) => routerIsEdge(db, routerId));
  if (isEdge === undefined) throw ApiError.notFound('router', routerId);
  await removeEntity(deps, isEdge ? edgeRouter : router, routerId);
}
