// The router's tunneler's sessions (common_tunnel.go ensureSessionForService): the session it names while it still
// belongs to this service, type and API session; else the channel's last one for them; else a new one, made by the
// same checks and insert as an SDK's `POST /sessions` (entities/session/create-session.ts).
import { ApiError } from '../../errors/api-error.js';
import { createSessionIn, sessionCreateWrite } from '../../entities/session/create-session.js';
import type { FailedServiceRequest } from '../../posture/reported-posture.js';
import type { ApiSessionRow } from '../../store/queries/api-sessions.js';
import type { EdgeService } from '../../store/queries/edge-sessions.js';
import { tunnelSessionById, type TunnelSessionRow } from '../../store/queries/tunnel.js';
import { EdgeErrorCode, EdgeRequestError } from '../edge-requests.js';
import type { TunnelDeps } from './tunnel-identity.js';
import type { TunnelState } from './tunnel-state.js';

export type SessionType = 'Dial' | 'Bind';

async function validSession(
  deps: TunnelDeps,
  sessionId: string | undefined,
  service: EdgeService,
  apiSession: ApiSessionRow,
  type: SessionType,
): Promise<TunnelSessionRow | undefined> {
  if (!sessionId) return undefined;
  const session = await deps.store.read((db) => tunnelSessionById(db, sessionId));
  const matches = session?.service_id === service.id && session.api_session_id === apiSession.id;
  return matches && session.type === type ? session : undefined;
}

/** The session to use; a create the policies refuse is upstream's internal error with the refusal's words. */
export async function ensureTunnelSession(
  deps: TunnelDeps,
  state: TunnelState,
  apiSession: ApiSessionRow,
  service: EdgeService,
  sessionId: string,
  type: SessionType,
): Promise<TunnelSessionRow> {
  const named = await validSession(deps, sessionId, service, apiSession, type);
  if (named) return named;
  const cached = await validSession(deps, state.sessionFor(service.id, type), service, apiSession, type);
  if (cached) return cached;
  const viewer = { identityId: apiSession.identity_id, apiSessionId: apiSession.id, isAdmin: false };
  let refused: FailedServiceRequest | undefined;
  let made;
  try {
    made = await deps.store.transaction(
      (tx) =>
        createSessionIn(tx, deps, viewer, service.id, type, { serviceId: service.id, type }, (failure) => {
          refused = failure;
        }),
      sessionCreateWrite(apiSession.id, apiSession.identity_id),
    );
  } catch (error) {
    if (refused) await deps.posture.recordFailedServiceRequest(apiSession.identity_id, refused);
    if (error instanceof ApiError) throw new EdgeRequestError(error.message, EdgeErrorCode.internal);
    throw error;
  }
  const session = {
    id: made.session.id,
    token: String(made.session.token),
    api_session_id: apiSession.id,
    identity_id: apiSession.identity_id,
    service_id: service.id,
    type,
  };
  state.keepSession(service.id, type, session.id);
  return session;
}
