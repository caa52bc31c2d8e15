// A test router's fabric xgress listener (`binding: proxy`, `proxy_udp` or `transport`) asking for a circuit as a
// v1.1.8 router does for each connection it accepts (router/xgress/request.go GetCircuit): CircuitRequest 1000 with
// the listener's service (a proxy listener sends no ingress id and no peer data), read back as the router reads the
// answer: CircuitSuccess 1001 (the circuit id as body, the address in header 1100, every other header peer data) or
// CircuitFailed 1016 (the reason as body).
import { create, toBinary } from '@bufbuild/protobuf';
import type { Channel } from '../../src/fabric/channel/channel.js';
import { decodeString } from '../../src/fabric/channel/header-codecs.js';
import { Header } from '../../src/fabric/channel/message.js';
import { CircuitRequestSchema, ContentType } from '../../src/fabric/messages/gen/ctrl_pb.js';
import { CircuitSuccessHeader, ControlContentType } from '../../src/fabric/messages/headers.js';

export type CircuitAnswer =
  | { success: true; circuitId: string; address: string; peerData: Map<number, Uint8Array> }
  | { success: false; reason: string };

/** The channel's own headers (reply-for, heartbeats): the router's read keeps them among the peer data; tests don't. */
const CHANNEL_HEADERS = new Set<number>(Object.values(Header));

export async function requestCircuit(
  channel: Channel,
  service: string,
  options: { ingressId?: string; peerData?: Record<number, Uint8Array>; timeoutMs?: number } = {},
): Promise<CircuitAnswer> {
  const request = create(CircuitRequestSchema, {
    service,
    ingressId: options.ingressId ?? '',
    peerData: options.peerData ?? {},
  });
  const reply = await channel.request(
    { contentType: ContentType.CircuitRequestType, headers: new Map(), body: toBinary(CircuitRequestSchema, request) },
    options.timeoutMs ?? 10_000,
  );
  if (reply.contentType === ControlContentType.circuitFailed)
    return { success: false, reason: decodeString(reply.body) };
  if (reply.contentType !== ControlContentType.circuitSuccess)
    throw new Error(`unexpected controller response to circuit request, content type ${reply.contentType}`);
  const address = reply.headers.get(CircuitSuccessHeader.address);
  const peerData = new Map(
    [...reply.headers].filter(([key]) => key !== CircuitSuccessHeader.address && !CHANNEL_HEADERS.has(key)),
  );
  return {
    success: true,
    circuitId: decodeString(reply.body),
    address: address ? decodeString(address) : '',
    peerData,
  };
}
