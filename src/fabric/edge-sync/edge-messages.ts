// The edge messages of the API-session sync as upstream v1.1.8's instant strategy writes and reads them
// (controller/sync_strats/sync_instant.go): the edge hello both ways, the API sessions added (in chunks for the full
// state), updated and removed, sessions removed, and what routers send back (heartbeats, resync requests).
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { newCuid } from '../../lib/ids.js';
import type { RouterApiSession } from '../../store/queries/router-sync.js';
import { SyncHeader } from '../messages/headers.js';
import {
  ApiSessionAddedSchema,
  ApiSessionHeartbeatSchema,
  ApiSessionRemovedSchema,
  ApiSessionSchema,
  ApiSessionUpdatedSchema,
  ClientHelloSchema,
  ContentType,
  Header,
  RequestClientReSyncSchema,
  ServerHelloSchema,
  SessionRemovedSchema,
  ValidateSessionsRequestSchema,
} from '../messages/gen/edge_ctrl_pb.js';

/** A message to send, as the channel takes it. */
export interface OutgoingMessage {
  contentType: number;
  headers: Map<number, Uint8Array>;
  body: Uint8Array;
}

/** The strategy's name in header 1013 (`RouterSyncStrategyInstant`). */
const INSTANT = new TextEncoder().encode('instant');
const TRUE = Uint8Array.of(1);

/**
 * The ServerHello upstream sends, offering the router data model (header 1024) as it always does; a v1.1.8 router
 * without HA declines it by leaving the header out of its ClientHello, and receives the API-session sync.
 */
export function serverHello(version: string): OutgoingMessage {
  const hello = create(ServerHelloSchema, { version, data: { instant: 'true', routerModel: 'true' } });
  return {
    contentType: ContentType.ServerHelloType,
    headers: new Map([[Header.RouterDataModel, TRUE]]),
    body: toBinary(ServerHelloSchema, hello),
  };
}

export interface RouterEdgeHello {
  hostname: string;
  /** protocol → ingress URL (REST `supportedProtocols`, session `edgeRouters[].urls`). */
  supportedProtocols: Record<string, string>;
}

/**
 * What a ClientHello says about the router's edge listeners: `<protocol>://<hostname>:<port>` per advertised
 * listener, or, from routers older than the listeners field, per protocol and port at the one hostname
 * (ReceiveClientHello in sync_instant.go).
 */
export function readClientHello(body: Uint8Array): RouterEdgeHello {
  const hello = fromBinary(ClientHelloSchema, body);
  const supportedProtocols: Record<string, string> = {};
  if (hello.listeners.length > 0) {
    for (const { advertise } of hello.listeners) {
      if (advertise)
        supportedProtocols[advertise.protocol] = `${advertise.protocol}://${advertise.hostname}:${advertise.port}`;
    }
  } else {
    hello.protocols.forEach((protocol, index) => {
      const port = hello.protocolPorts[index];
      if (port !== undefined) supportedProtocols[protocol] = `${protocol}://${hello.hostname}:${port}`;
    });
  }
  return { hostname: hello.hostname, supportedProtocols };
}

/** Header 1014 of a full-state chunk: which sync it belongs to, its place, and whether it ends the sync. */
export interface SyncState {
  id: string;
  isLast: boolean;
  sequence: number;
}

let lastSyncId = '';
/**
 * A sync id later than every earlier one: a router that receives chunks of a newer sync while one is unfinished
 * abandons the older only if the new id sorts after it (router/state/apiSessionAdded.go compares them as strings).
 */
export function newSyncId(now: Date): string {
  const id = newCuid(now);
  lastSyncId = id > lastSyncId ? id : `${lastSyncId}0`;
  return lastSyncId;
}

const toApiSession = (session: RouterApiSession) => create(ApiSessionSchema, session);

/** ApiSessionAdded: a chunk of the full state, or (isFullState false) sessions that became usable. */
export function apiSessionAdded(
  sessions: readonly RouterApiSession[],
  isFullState: boolean,
  state: SyncState,
): OutgoingMessage {
  const body = toBinary(
    ApiSessionAddedSchema,
    create(ApiSessionAddedSchema, { isFullState, apiSessions: sessions.map(toApiSession) }),
  );
  // The JSON keys in upstream's order (InstantSyncState), which the router parses.
  const stateJson = JSON.stringify({ id: state.id, isLast: state.isLast, sequence: state.sequence });
  return {
    contentType: ContentType.ApiSessionAddedType,
    headers: new Map([
      [SyncHeader.strategyType, INSTANT],
      [SyncHeader.strategyState, new TextEncoder().encode(stateJson)],
    ]),
    body,
  };
}

/** ApiSessionUpdated: new certificate fingerprints. Upstream sets the state header present and empty. */
export function apiSessionUpdated(sessions: readonly RouterApiSession[]): OutgoingMessage {
  return {
    contentType: ContentType.ApiSessionUpdatedType,
    headers: new Map([
      [SyncHeader.strategyType, INSTANT],
      [SyncHeader.strategyState, new Uint8Array(0)],
    ]),
    body: toBinary(
      ApiSessionUpdatedSchema,
      create(ApiSessionUpdatedSchema, { apiSessions: sessions.map(toApiSession) }),
    ),
  };
}

export interface Ended {
  id: string;
  token: string;
}

/** ApiSessionRemoved, with ids beside the tokens (the router logs them when both lists are as long). */
export function apiSessionRemoved(ended: readonly Ended[]): OutgoingMessage {
  const body = create(ApiSessionRemovedSchema, { tokens: ended.map((e) => e.token), ids: ended.map((e) => e.id) });
  return {
    contentType: ContentType.ApiSessionRemovedType,
    headers: new Map(),
    body: toBinary(ApiSessionRemovedSchema, body),
  };
}

export function sessionRemoved(ended: readonly Ended[]): OutgoingMessage {
  const body = create(SessionRemovedSchema, { tokens: ended.map((e) => e.token), ids: ended.map((e) => e.id) });
  return {
    contentType: ContentType.SessionRemovedType,
    headers: new Map(),
    body: toBinary(SessionRemovedSchema, body),
  };
}

/** An ApiSessionRemoved for tokens a heartbeat named that no longer exist (upstream sends tokens only). */
export function unknownApiSessions(tokens: readonly string[]): OutgoingMessage {
  const body = toBinary(ApiSessionRemovedSchema, create(ApiSessionRemovedSchema, { tokens: [...tokens] }));
  return { contentType: ContentType.ApiSessionRemovedType, headers: new Map(), body };
}

/** A SessionRemoved for tokens a router asked about that no longer exist (upstream sends tokens only). */
export function unknownSessions(tokens: readonly string[]): OutgoingMessage {
  const body = toBinary(SessionRemovedSchema, create(SessionRemovedSchema, { tokens: [...tokens] }));
  return { contentType: ContentType.SessionRemovedType, headers: new Map(), body };
}

/** The session tokens a reconnecting router asks about (ValidateSessionsRequest). */
export function readValidateSessions(body: Uint8Array): string[] {
  return fromBinary(ValidateSessionsRequestSchema, body).sessionTokens;
}

/** The API-session tokens a router's heartbeat names (its SDK clients' sessions). */
export function readHeartbeat(body: Uint8Array): string[] {
  return fromBinary(ApiSessionHeartbeatSchema, body).tokens;
}

export function readResyncReason(body: Uint8Array): string {
  return fromBinary(RequestClientReSyncSchema, body).reason;
}
