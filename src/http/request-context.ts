// Who is calling: resolved once per request from the `zt-session` header, before anything is refused.

/**
 * An outstanding secondary factor, as the API renders it in `authQueries` (docs/reference/pki-enrollment-auth.md §6.3).
 */
export interface AuthQuery {
  typeId: 'MFA' | 'EXT-JWT';
  provider: 'ziti' | 'url';
  format?: 'alphaNumeric';
  httpMethod?: string;
  httpUrl: string;
  maxLength?: number;
  minLength?: number;
}

export interface CallerSession {
  apiSessionId: string;
  token: string;
  identityId: string;
  isAdmin: boolean;
  /** Secondary authentication (MFA, an external JWT) is still outstanding: `authQueries` is not empty. */
  isPartial: boolean;
  authQueries: readonly AuthQuery[];
  /** The config types the session was created with, as stored (JSON text; null: none), read with the session. */
  configTypes: string | null;
  /** When the session lapses without further activity. */
  expiresAt: Date;
  expirationSeconds: number;
}

export interface RequestContext {
  requestId: string;
  ip: string;
  /** The request carried a `zt-session` header, valid or not (decides the cause of a 401). */
  presentedToken: boolean;
  session: CallerSession | undefined;
}

/** The caller of an operation whose access needs an API session: the binder admitted it (access.ts). */
export interface SessionCaller extends RequestContext {
  session: CallerSession;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Upstream treats a token that is not a UUID as absent. */
export function sessionToken(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  return value !== undefined && UUID.test(value) ? value.toLowerCase() : undefined;
}
