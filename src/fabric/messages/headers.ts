// Header keys and values of control messages that are not in the .proto files: upstream keeps them as Go constants
// (common/ctrl_msg/messages.go, controller/env/sync.go, common/capabilities/consts.go, channel's message.go).

/** Bits of the hello result's capabilities header (ControlHeaders.CapabilitiesHeader, a big-endian mask). */
export const ControllerCapability = {
  CreateTerminatorV2: 1,
  SingleRouterLinkSource: 2,
  CreateCircuitV2: 3,
} as const;

/** RouteResult (1022): a reply to Route with the circuit id as body and these headers. */
export const RouteResultHeader = { attempt: 1101, success: 1102, error: 1103, errorCode: 1104 } as const;
export const RouteResultErrorCode = {
  generic: 0,
  invalidTerminator: 1,
  misconfiguredTerminator: 2,
  dialTimedOut: 3,
  connectionRefused: 4,
} as const;
/** Peer-data keys of route results that carry the circuit's addresses rather than data for the dialler. */
export const PathHeader = {
  terminatorLocalAddress: 1110,
  terminatorRemoteAddress: 1111,
  initiatorLocalAddress: 1112,
  initiatorRemoteAddress: 1113,
} as const;

/** CreateCircuitV2 (20218 / 20219): headers only, no protobuf body. */
export const CreateCircuitV2Header = {
  peerData: 10,
  requestSessionToken: 11,
  requestFingerprints: 12,
  requestTerminatorInstanceId: 13,
  requestApiSessionToken: 14,
  responseCircuitId: 11,
  responseAddress: 12,
  responseTags: 13,
} as const;

/** API-session sync (ApiSessionAdded full state): the strategy's type and its JSON state. */
export const SyncHeader = { strategyType: 1013, strategyState: 1014, lastIndex: 1015 } as const;

/** CircuitSuccess (1001, the answer to a fabric CircuitRequest): the circuit id is the body, its address this header. */
export const CircuitSuccessHeader = { address: 1100 } as const;

/** Other control content types without a protobuf body. */
export const ControlContentType = { circuitSuccess: 1001, circuitFailed: 1016, routeResult: 1022 } as const;
