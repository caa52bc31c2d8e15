// The links of the routers this process holds, started from the controller's composition on its RouterConnections.
import type { Store } from '../../store/store.js';
import { routerPathAttributes } from '../../store/queries/router-costs.js';
import { routersForConnection } from '../../store/queries/router-presence.js';
import { Links, type LinkRouters, type LinksLogger } from './links.js';
import { serveVerifyRouter, type VerifyChannel } from './verify-router.js';

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

/** Answers the routers' VerifyRouter requests (a link's accepting router checks the dialling one) from the store. */
export function startRouterVerification(routers: { onConnected(listener: (router: { channel: VerifyChannel }) => void): void }, store: Store, logger: LinksLogger): void {
  const fingerprintOf = async (routerId: string) => (await store.read((db) => routersForConnection(db, [routerId])))[0]?.fingerprint;
  routers.onConnected((router) => serveVerifyRouter(router.channel, fingerprintOf, (fields, message) => logger.warn(fields, message)));
}
