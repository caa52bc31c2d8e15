// References (`entityRef`) to the network's routers, links, services and terminators as the fabric API writes them
// (upstream `api_impl/base_entity_api_model.go` ToEntityRef with each entity's link factory).
import { entityRef } from '../../crud/entity-mapping.js';
import { named, namesOf } from '../../store/queries/references.js';
import type { Db } from '../../store/store.js';
import { fabricRouter } from '../router/router.fabric.js';
import { fabricService } from '../service/service.fabric.js';
import { fabricTerminator } from '../terminator/terminator.fabric.js';

export interface NetworkRefs {
  router(id: string): Record<string, unknown>;
  link(id: string): Record<string, unknown>;
  service(id: string, name: string): Record<string, unknown>;
  terminator(id: string): Record<string, unknown>;
}

/** Links and terminators are named by their ids upstream; routers by their names, read once for all `routerIds`. */
export async function networkRefs(db: Db, routerIds: readonly string[]): Promise<NetworkRefs> {
  const routerNames = await namesOf(db, named.router, routerIds);
  const byId = (entity: string, id: string) => ({
    _links: { self: { href: `./${entity}/${id}` } },
    entity,
    id,
    name: id,
  });
  return {
    router: (id) => withoutEmptyName(entityRef(fabricRouter, { id, name: routerNames.get(id) ?? '' })),
    link: (id) => byId('links', id),
    service: (id, name) => entityRef(fabricService, { id, name }),
    terminator: (id) => byId(fabricTerminator.path, id),
  };
}

/** `name` is omitempty upstream: a router deleted since has none here. */
function withoutEmptyName(ref: Record<string, unknown>): Record<string, unknown> {
  if (ref.name !== '') return ref;
  const { name: _name, ...rest } = ref;
  return rest;
}
