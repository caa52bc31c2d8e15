// The links of the routers this process holds, started from the controller's composition on its RouterConnections.
import type { Store } from '../../store/store.js';
import { routerPathAttributes } from '../../store/queries/router-costs.js';
import { ContentType } from '../messages/gen/ctrl_pb.js';
import { Links, type LinkRouters, type LinksLogger } from './links.js';

export function startLinks(routers: LinkRouters, store: Store, logger: LinksLogger): Links {
  const links = new Links({
    routers,
    routerAttributes: (ids) => store.read((db) => routerPathAttributes(db, ids)),
    routerExists: async (id) => (await store.read((db) => routerPathAttributes(db, [id]))).has(id),
    logger,
  });
  // Faults (1004) carry link and circuit subjects on one content type: until the circuits take the channel's fault
  // handler (and call links.handleFault first, fabric-seam.md), links handle them alone.
  routers.onConnected((router) => router.channel.handle(ContentType.FaultType, links.faultMessageHandler(router.routerId)));
  return links;
}
