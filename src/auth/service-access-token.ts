// Service-access JWTs (the session tokens of OIDC API sessions): what `GET /services/{id}/edge-routers` checks in
// its optional `session-token` header (ziti `env/appenv.go` ValidateServiceAccessToken). This controller issues
// none (its sessions carry UUID tokens), so only a token signed with its own server key could ever pass.
import { createPublicKey } from 'node:crypto';
import { errors, jwtVerify } from 'jose';
import { ApiError } from '../errors/api-error.js';
import type { Pki } from '../pki/ensure-pki.js';

/** golang-jwt's text for a token that is not three dot-separated parts, which is what a UUID session token is. */
const MALFORMED = 'token is malformed: token contains an invalid number of segments';

/** Throws 401 UNAUTHORIZED, with the reason as its cause, unless `token` grants service access to `apiSessionId`. */
export async function checkServiceAccessToken(pki: Pki, token: string, apiSessionId: string, now: Date): Promise<void> {
  if (token.split('.').length !== 3) throw ApiError.withMessage('UNAUTHORIZED', MALFORMED);
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(token, createPublicKey(pki.serverKey), { audience: 'openziti', currentDate: now }));
  } catch (error) {
    if (error instanceof errors.JOSEError) throw ApiError.withMessage('UNAUTHORIZED', error.message);
    throw error;
  }
  if (payload.z_t !== 's')
    throw ApiError.withMessage('UNAUTHORIZED', `invalid token type, expected s, got ${String(payload.z_t)}`);
  if (payload.z_asid !== apiSessionId) {
    throw ApiError.withMessage(
      'UNAUTHORIZED',
      `invalid api sessoin id, expected ${apiSessionId}, got ${String(payload.z_asid)}`,
    );
  }
}
