// The access check, run after request validation as upstream does; a refusal is always 401 UNAUTHORIZED.
import { ApiError } from '../errors/api-error.js';
import type { Access } from './operation.js';
import type { RequestContext } from './request-context.js';

export function checkAccess(access: Access, caller: RequestContext): void {
  if (access === 'public') return;
  const session = caller.session;
  if (!session) {
    // Upstream's security layer adds this cause only when no credentials were presented at all.
    throw caller.presentedToken
      ? new ApiError('UNAUTHORIZED')
      : ApiError.withMessage('UNAUTHORIZED', 'unauthenticated for invalid credentials');
  }
  if (access === 'partial') return;
  // Stricter than upstream v1.1.8, which lets an admin with MFA outstanding through admin-only routes.
  if (session.isPartial) throw new ApiError('UNAUTHORIZED');
  if (access === 'admin' && !session.isAdmin) throw new ApiError('UNAUTHORIZED');
}
