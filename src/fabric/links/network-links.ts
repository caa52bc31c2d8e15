// The links of the routers this process holds, started from the controller's composition on its RouterConnections.
import type { Store } from '../../store/store.js';
import { routerPathAttributes } from '../../store/queries/router-costs.js';
import { Links, type LinkRouters, type LinksLogger } from './links.js';

export function startLinks(routers: LinkRouters, store: Store, logger: LinksLogger): Links {
  const links = new Links({
    routers,
    routerAttributes: (ids) => store.read((db) => routerPathAttributes(db, ids)),
    routerExists: async (id) => (await store.read((db) => routerPathAttributes(db, [id]))).has(id),
    logger,
  });
  // Faults (1004) about links reach `links.handleFault` through the circuits, which hold the channel's one Fault
  // handler (src/fabric/traffic.ts).
  return links;
}
