// The checks a router's requests for an SDK share (ziti controller/handler_edge_ctrl/common.go in v1.1.8), in
// upstream's order: the service session by its token, its type, the API session's certificate fingerprints, the
// edge router policies for this router, the service. Each failure carries the edge error code the SDK is told.
import {
  apiSessionFingerprints,
  edgeSessionByToken,
  edgeSessionCheck,
  type EdgeService,
  type EdgeSession,
} from '../store/queries/edge-sessions.js';
import type { Db } from '../store/store.js';
import { INTERNAL_EDGE_ERROR, RouterRequestError } from './ctrl/router-request-error.js';

/** sdk-golang ziti/edge: the codes of header 1014 on an error reply. */
export const EdgeErrorCode = {
  internal: INTERNAL_EDGE_ERROR,
  invalidApiSession: 2,
  invalidSession: 3,
  wrongSessionType: 4,
  invalidEdgeRouterForSession: 5,
  invalidService: 6,
  tunnelingNotEnabled: 7,
  invalidTerminator: 8,
  invalidPrecedence: 9,
  invalidCost: 10,
  encryptionDataMissing: 11,
} as const;

/** Header of an edge error reply (ErrorType 20002) holding its code (sdk-golang edge.ErrorCodeHeader). */
export const EDGE_ERROR_CODE_HEADER = 1014;

/** A refusal with upstream's words and code. */
export class EdgeRequestError extends RouterRequestError {
  constructor(message: string, code: number) {
    super(message, code);
    this.name = 'EdgeRequestError';
  }
}

export interface SessionRequest {
  routerId: string;
  sessionToken: string;
  fingerprints: readonly string[];
  /** 'Bind' for terminators, 'Dial' for circuits. */
  type: 'Bind' | 'Dial';
  /** Now, as stored timestamps are written: certificates are valid or not at this time. */
  at: string;
}

export interface CheckedSession {
  session: EdgeSession;
  service: EdgeService;
}

/** The first three checks, alone (UpdateTerminator and health events stop there). */
export async function checkSession(db: Db, request: Omit<SessionRequest, 'routerId'>): Promise<EdgeSession> {
  const session = await edgeSessionByToken(db, request.sessionToken);
  if (!session) throw new EdgeRequestError('invalid session', EdgeErrorCode.invalidSession);
  requireType(request, session);
  requireFingerprint(request, await apiSessionFingerprints(db, session.apiSessionId, session.identityId, request.at));
  return session;
}

function requireType(request: Pick<SessionRequest, 'type'>, session: EdgeSession): void {
  if (session.type !== request.type)
    throw new EdgeRequestError('incorrect session type', EdgeErrorCode.wrongSessionType);
}

/** The client presented a certificate its API session may present. */
function requireFingerprint(request: Pick<SessionRequest, 'fingerprints'>, known: readonly string[]): void {
  if (!request.fingerprints.some((fingerprint) => known.includes(fingerprint))) {
    throw new EdgeRequestError('invalid api session', EdgeErrorCode.invalidApiSession);
  }
}

/** Every check, in upstream's order, on what one read answers (edgeSessionCheck): a dial's and a bind's. */
export async function checkSessionRequest(db: Db, request: SessionRequest): Promise<CheckedSession> {
  const found = await edgeSessionCheck(db, request.sessionToken, request.at, request.routerId);
  if (!found) throw new EdgeRequestError('invalid session', EdgeErrorCode.invalidSession);
  const { session, fingerprints, routerShared, service } = found;
  requireType(request, session);
  requireFingerprint(request, fingerprints);
  if (!routerShared) {
    throw new EdgeRequestError('invalid edge router for session', EdgeErrorCode.invalidEdgeRouterForSession);
  }
  if (!service) throw new EdgeRequestError('invalid service', EdgeErrorCode.invalidService);
  return { session, service };
}
