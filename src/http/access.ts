// The access check, run after request validation as upstream does; a refusal is always 401 UNAUTHORIZED.
import { ApiError } from '../errors/api-error.js';
import type { Access, SessionAccess } from './operation.js';
import type { RequestContext, SessionCaller } from './request-context.js';
import type { ApiName, OperationSpec } from './spec/load-spec.js';

/** Management paths that any authenticated identity may call; everything else there is admin-only. */
const SELF_SERVICE = /^\/(current-identity|current-api-session|authenticate|controllers)(\/|$)/;

/**
 * The access rule of docs/design.md part 0 (docs/reference/http-conventions.md §3.4): public where the contract lists
 * no security; on the management API admin-only except the caller's own identity, session, MFA and controllers;
 * on the client API any authenticated caller, except changes to services, which need an admin.
 */
export function defaultAccess(op: OperationSpec): Access {
  if (op.isPublic) return 'public';
  // v1.1.8 wraps every fabric operation in one admin check (controller/server/fabric-api.go WrapRequest).
  if (op.api === 'fabric') return 'admin';
  if (op.api === 'management') return SELF_SERVICE.test(op.path) ? 'authenticated' : 'admin';
  return op.path === '/services/{id}' && op.method !== 'GET' ? 'admin' : 'authenticated';
}

/** The caller, once its session satisfies `access`; a refusal is 401 UNAUTHORIZED. */
export function admitCaller(access: SessionAccess, caller: RequestContext, api: ApiName = 'client'): SessionCaller {
  if (!hasSession(caller)) {
    // Upstream's security layer adds this cause only when no credentials were presented at all; the fabric API has
    // no security layer (its document declares no security definitions), only the admin check of its wrapper.
    throw caller.presentedToken || api === 'fabric'
      ? new ApiError('UNAUTHORIZED')
      : ApiError.withMessage('UNAUTHORIZED', 'unauthenticated for invalid credentials');
  }
  if (access === 'partial') return caller;
  // Stricter than upstream v1.1.8, which lets an admin with MFA outstanding through admin-only routes.
  if (caller.session.isPartial) throw new ApiError('UNAUTHORIZED');
  if (access === 'admin' && !caller.session.isAdmin) throw new ApiError('UNAUTHORIZED');
  return caller;
}

function hasSession(caller: RequestContext): caller is SessionCaller {
  return caller.session !== undefined;
}
