// The wire forms of a circuit's messages (ziti common/ctrl_msg/messages.go, controller/network/network_path.go in
// v1.1.8): Unroute (protobuf; the Routes are route-plan.ts's), RouteResult and CreateCircuitV2 (headers only), the
// edge error reply, and the fabric CircuitRequest (1000) with its answers (CircuitSuccess 1001, CircuitFailed 1016).
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import type { Message } from '../channel/message.js';
import type { FabricLogger } from '../ctrl/router-channel.js';
import {
  decodeString,
  decodeStringSlice,
  decodeU32,
  decodeU32ToBytesMap,
  encodeString,
  encodeStringToStringMap,
  encodeU32,
  encodeU32ToBytesMap,
} from '../channel/header-codecs.js';
import {
  CircuitRequestSchema,
  ContentType as CtrlType,
  UnrouteSchema,
  type CircuitRequest,
} from '../messages/gen/ctrl_pb.js';
import { ContentType as EdgeType } from '../messages/gen/edge_ctrl_pb.js';
import {
  CircuitSuccessHeader,
  ControlContentType,
  CreateCircuitV2Header,
  RouteResultHeader,
} from '../messages/headers.js';
import { EDGE_ERROR_CODE_HEADER } from '../edge-requests.js';

export type Outgoing = Omit<Message, 'sequence'>;
export type PeerData = Map<number, Uint8Array>;

const NO_BODY = new Uint8Array(0);

export function unrouteMessage(circuitId: string, now: boolean): Outgoing {
  return {
    contentType: CtrlType.UnrouteType,
    headers: new Map(),
    body: toBinary(UnrouteSchema, create(UnrouteSchema, { circuitId, now })),
  };
}

/**
 * Unroutes a circuit at each router (upstream sends these and logs what fails): a router that went meanwhile is
 * why one fails, and its forwarding state went with it, so a failure is logged and the others still go.
 */
export async function unrouteAt(
  deps: { messenger: { send(routerId: string, message: Outgoing): Promise<void> }; logger: FabricLogger },
  routerIds: Iterable<string>,
  circuitId: string,
  now: boolean,
): Promise<void> {
  const message = unrouteMessage(circuitId, now);
  await Promise.all(
    [...routerIds].map((routerId) =>
      deps.messenger
        .send(routerId, message)
        .catch((error: unknown) =>
          deps.logger.info(
            { routerId, circuitId, reason: error instanceof Error ? error.message : String(error) },
            'could not send unroute',
          ),
        ),
    ),
  );
}

export interface RouteResult {
  circuitId: string;
  attempt: number;
  success: boolean;
  error: string;
  /** RouteResultErrorCode; undefined when the router sent none. */
  errorCode: number | undefined;
  peerData: PeerData;
}

/** A RouteResult as upstream's routeResultHandler reads it; undefined without an attempt header. */
export function decodeRouteResult(message: Message): RouteResult | undefined {
  const attempt = message.headers.get(RouteResultHeader.attempt);
  if (!attempt || attempt.length !== 4) return undefined;
  const peerData: PeerData = new Map();
  // Every other header above 0 outside 1102-1104 is the terminator's peer data (the attempt 1101 included, as upstream).
  for (const [key, value] of message.headers)
    if (key > 0 && (key < RouteResultHeader.success || key > RouteResultHeader.errorCode)) peerData.set(key, value);
  const errorCode = message.headers.get(RouteResultHeader.errorCode);
  const error = message.headers.get(RouteResultHeader.error);
  return {
    circuitId: decodeString(message.body),
    attempt: decodeU32(attempt),
    success: message.headers.has(RouteResultHeader.success),
    error: error ? decodeString(error) : '',
    errorCode: errorCode && errorCode.length > 0 ? errorCode[0] : undefined,
    peerData,
  };
}

export interface CreateCircuitRequest {
  sessionToken: string;
  apiSessionToken: string;
  fingerprints: string[];
  terminatorInstanceId: string;
  peerData: PeerData;
}

/** ctrl_msg.DecodeCreateCircuitRequest: every header optional (absent is empty). Throws FrameError on malformed ones. */
export function decodeCreateCircuitRequest(message: Message): CreateCircuitRequest {
  const text = (key: number) => {
    const value = message.headers.get(key);
    return value ? decodeString(value) : '';
  };
  const fingerprints = message.headers.get(CreateCircuitV2Header.requestFingerprints);
  const peerData = message.headers.get(CreateCircuitV2Header.peerData);
  return {
    sessionToken: text(CreateCircuitV2Header.requestSessionToken),
    apiSessionToken: text(CreateCircuitV2Header.requestApiSessionToken),
    fingerprints: fingerprints ? decodeStringSlice(fingerprints) : [],
    terminatorInstanceId: text(CreateCircuitV2Header.requestTerminatorInstanceId),
    peerData: peerData ? decodeU32ToBytesMap(peerData) : new Map<number, Uint8Array>(),
  };
}

export interface CreateCircuitResponse {
  circuitId: string;
  address: string;
  peerData: PeerData;
  tags: Record<string, string>;
}

export function createCircuitResponse(response: CreateCircuitResponse): Outgoing {
  return {
    contentType: EdgeType.CreateCircuitV2ResponseType,
    headers: new Map([
      [CreateCircuitV2Header.responseCircuitId, encodeString(response.circuitId)],
      [CreateCircuitV2Header.responseAddress, encodeString(response.address)],
      [CreateCircuitV2Header.peerData, encodeU32ToBytesMap(response.peerData)],
      [CreateCircuitV2Header.responseTags, encodeStringToStringMap(response.tags)],
    ]),
    body: NO_BODY,
  };
}

/** The edge error reply (ErrorType 20002): the message as the body, its code in header 1014. */
export function edgeErrorMessage(message: string, code: number): Outgoing {
  return {
    contentType: EdgeType.ErrorType,
    headers: new Map([[EDGE_ERROR_CODE_HEADER, encodeU32(code)]]),
    body: encodeString(message),
  };
}

/** CircuitRequest (1000): a protobuf body (ingress id, service, peer data), nothing in the headers. */
export function decodeCircuitRequest(message: Message): CircuitRequest {
  return fromBinary(CircuitRequestSchema, message.body);
}

/**
 * CircuitSuccess (ctrl_msg.NewCircuitSuccessMsg and circuit_request.go): the circuit id as the body, its address in
 * header 1100, then every peer-data entry as a header of its own (the terminator's, then the route's), as upstream
 * sets them after the address. Peer-data keys are uint32 and channel header keys int32: a key past 2^31 goes on the
 * wire as the same 32 bits, as Go's int32(k) conversion sends it.
 */
export function circuitSuccessMessage(circuitId: string, address: string, peerData: PeerData): Outgoing {
  const headers = new Map<number, Uint8Array>([[CircuitSuccessHeader.address, encodeString(address)]]);
  for (const [key, value] of peerData) headers.set(key | 0, value);
  return { contentType: ControlContentType.circuitSuccess, headers, body: encodeString(circuitId) };
}

/** CircuitFailed (ctrl_msg.NewCircuitFailedMsg): the reason as the body, nothing else. */
export function circuitFailedMessage(reason: string): Outgoing {
  return { contentType: ControlContentType.circuitFailed, headers: new Map(), body: encodeString(reason) };
}
