// Route messages reach a router through the process holding its channel. This one reaches the routers this process
// holds; a router held elsewhere is refused here (router-inbox.ts reaches those:
// docs/reference/router-control-plane-links.md §5.8).
import type { Message } from '../channel/message.js';
import type { RouteMessenger } from '../circuits/reroute.js';

export interface HeldChannels {
  get(routerId: string):
    | {
        channel: {
          send(message: Omit<Message, 'sequence'>): void;
          request(message: Omit<Message, 'sequence'>, timeoutMs: number): Promise<Message>;
        };
      }
    | undefined;
}

export class RouterNotHeldError extends Error {
  constructor(readonly routerId: string) {
    super(`router ${routerId} is not connected to this controller process`);
  }
}

export function localMessenger(routers: HeldChannels): RouteMessenger {
  const channelOf = (routerId: string) => {
    const held = routers.get(routerId);
    if (!held) throw new RouterNotHeldError(routerId);
    return held.channel;
  };
  return {
    request: async (routerId, message, timeoutMs) => channelOf(routerId).request(message, timeoutMs),
    send: (routerId, message) => {
      const held = routers.get(routerId);
      if (!held) return Promise.reject(new RouterNotHeldError(routerId));
      held.channel.send(message);
      return Promise.resolve();
    },
  };
}
