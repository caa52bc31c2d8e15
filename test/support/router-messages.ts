// Serves the router-message table (src/fabric/router-messages.ts) on a test's channel with the parts a test made; a
// message for a part it did not make fails loudly, answered as an internal error.
import pino from 'pino';
import { RouterMessages } from '../../src/fabric/ctrl/router-messages.js';
import type { ControlChannel } from '../../src/fabric/ctrl/router-channel.js';
import { routerMessages, type MessageHandlers } from '../../src/fabric/router-messages.js';

const notMade = (): never => {
  throw new Error('this part is not made in this test');
};

const absent: MessageHandlers = {
  circuits: { create: notMade, request: notMade, fault: notMade, confirm: notMade, lateRouteResult: notMade },
  terminators: { create: notMade, update: notMade, remove: notMade, health: notMade, validated: notMade },
  links: { fault: notMade, routerLinks: notMade, metrics: notMade },
  edgeSync: { heartbeat: notMade, resync: notMade, validateSessions: notMade },
  routerMetrics: () => undefined,
  renewal: { extend: notMade, verify: notMade },
  drain: { quiesce: notMade, dequiesce: notMade, decommission: notMade },
  tunnel: {
    createApiSession: notMade,
    listServices: notMade,
    createTerminator: notMade,
    createTerminatorV2: notMade,
    updateTerminator: notMade,
    removeTerminator: notMade,
    health: notMade,
  },
  tunnelCircuits: { create: notMade, createV2: notMade },
  fingerprintOf: notMade,
};

export function serveRouterMessages(channel: ControlChannel, routerId: string, parts: Partial<MessageHandlers>): void {
  new RouterMessages(routerMessages({ ...absent, ...parts }), pino({ level: 'silent' })).bind(routerId, channel);
}
