// The Route messages of a circuit over a path, as upstream v1.1.8's network_path.go CreateRouteMessages builds them:
// one per router in path order. The first router forwards ingress → first link, the last forwards last link → egress
// and dials the terminator, routers between forward link → link both ways; a one-router path joins ingress and egress.
// A re-route (upstream SmartRerouteAttempt) sends no egress: the last router keeps the xgress it already has.
import { create, toBinary } from '@bufbuild/protobuf';
import type { Message } from '../channel/message.js';
import { ContentType, DestType, RouteSchema } from '../messages/gen/ctrl_pb.js';
import type { Path } from '../links/paths.js';
import { mustAt } from '../../lib/collections.js';

/** upstream network.SmartRerouteAttempt: the attempt number of routes re-sent to move a circuit to another path. */
export const REROUTE_ATTEMPT = 99969996;

export interface RoutePlanSpec {
  circuitId: string;
  attempt: number;
  ingressId: string;
  egressId: string;
  path: Pick<Path, 'routerIds' | 'linkIds'>;
  terminator: { binding: string; address: string };
  /** The dialler's peer data, given to the last router's egress. */
  dialPeerData: ReadonlyMap<number, Uint8Array>;
  tags: Record<string, string>;
  /** What is left of the circuit's deadline, in ms (sent in ns). */
  remainingMs: number;
}

export interface RouterRoute {
  routerId: string;
  message: Omit<Message, 'sequence'>;
}

interface Forward {
  srcAddress: string;
  dstAddress: string;
  dstType: DestType;
}

const forward = (srcAddress: string, dstAddress: string, dstType: DestType): Forward => ({
  srcAddress,
  dstAddress,
  dstType,
});

function forwardsOf(spec: RoutePlanSpec, index: number): Forward[] {
  const { ingressId: ingress, egressId: egress, path } = spec;
  const last = path.routerIds.length - 1;
  if (last === 0) return [forward(ingress, egress, DestType.End), forward(egress, ingress, DestType.Start)];
  if (index === 0)
    return [
      forward(ingress, mustAt(path.linkIds, 0), DestType.Link),
      forward(mustAt(path.linkIds, 0), ingress, DestType.Start),
    ];
  const previous = mustAt(path.linkIds, index - 1);
  if (index === last) return [forward(egress, previous, DestType.Link), forward(previous, egress, DestType.End)];
  const next = mustAt(path.linkIds, index);
  return [forward(previous, next, DestType.Link), forward(next, previous, DestType.Link)];
}

/** The Route for each router of the path, in path order (send them all at once, as upstream's route sender). */
export function routePlan(spec: RoutePlanSpec): RouterRoute[] {
  const { routerIds, linkIds } = spec.path;
  if (routerIds.length === 0 || linkIds.length !== routerIds.length - 1)
    throw new Error('a path joins each pair of adjacent routers by one link');
  const timeout = BigInt(Math.max(0, Math.round(spec.remainingMs))) * 1_000_000n;
  const last = routerIds.length - 1;
  return routerIds.map((routerId, index) => {
    const egress =
      index === last && spec.attempt !== REROUTE_ATTEMPT
        ? {
            binding: spec.terminator.binding,
            address: spec.egressId,
            destination: spec.terminator.address,
            peerData: Object.fromEntries(spec.dialPeerData),
          }
        : undefined;
    const route = create(RouteSchema, {
      circuitId: spec.circuitId,
      attempt: spec.attempt,
      forwards: forwardsOf(spec, index),
      ...(egress ? { egress } : {}),
      context: { fields: {}, channelMask: 0 },
      timeout,
      tags: spec.tags,
    });
    return {
      routerId,
      message: { contentType: ContentType.RouteType, headers: new Map(), body: toBinary(RouteSchema, route) },
    };
  });
}
