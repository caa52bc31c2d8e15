// Who may open the management channel (`GET /fabric/v1/ws-api`, fabric/mgmt/mgmt-socket.ts): upstream's fabric
// wrapper for the websocket (server/fabric-api.go WrapWsHandler) resolves the `zt-session` header as every request
// does and admits only an admin; anyone else gets 401 with the error envelope before any upgrade.
import type { IncomingMessage } from 'node:http';
import { ApiError } from '../errors/api-error.js';
import { bearerTokensOf } from '../lib/bearer-tokens.js';
import type { MgmtAdmission } from '../fabric/mgmt/mgmt-socket.js';
import { errorBody } from './error-response.js';
import { sessionToken, type CallerSession } from './request-context.js';

/** The API sessions' lookup (auth/api-sessions.ts ApiSessions.resolve). */
export interface SessionResolver {
  resolve(token: string, bearerTokens: readonly string[]): Promise<CallerSession | undefined>;
}

export function admitMgmtChannel(
  apiSessions: SessionResolver,
  requestId: () => string,
): (request: IncomingMessage) => Promise<MgmtAdmission> {
  return async (request) => {
    const token = sessionToken(request.headers['zt-session']);
    const session = token ? await apiSessions.resolve(token, bearerTokensOf(request.rawHeaders)) : undefined;
    // As access.ts: a session with a secondary factor outstanding is not yet an admin's.
    if (session?.isAdmin && !session.isPartial) return { admitted: true };
    return { admitted: false, status: 401, body: errorBody(new ApiError('UNAUTHORIZED'), requestId()) };
  };
}
