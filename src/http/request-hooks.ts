// Per-request plumbing shared by both APIs: path rewriting, caller resolution, response headers, CORS, 404/405.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { ApiError } from '../errors/api-error.js';
import type { AppDeps } from '../app-deps.js';
import type { BoundRoute } from './bind-operations.js';
import { sendError } from './error-response.js';
import { sessionToken, type RequestContext } from './request-context.js';
import { bearerTokensOf } from '../auth/ext-jwt/ext-jwt-verifier.js';

declare module 'fastify' {
  interface FastifyRequest {
    caller: RequestContext;
  }
}

const CLIENT_BASE = '/edge/client/v1';

/**
 * Old SDKs call `/edge/v1/...` and un-prefixed client paths (`/authenticate?method=cert`); `/` and `/version`
 * answer the version document (ziti controller/server/client-api.go).
 */
export function rewriteUrl(request: IncomingMessage): string {
  const url = request.url ?? '/';
  const queryAt = url.indexOf('?');
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  const query = queryAt === -1 ? '' : url.slice(queryAt);
  if (path === '/' || path === '/version') return `${CLIENT_BASE}/version${query}`;
  // Liveness and readiness (system/health.ts) are this controller's own, outside both APIs.
  if (path === '/health' || path === '/ready') return url;
  if (path === '/edge/v1' || path.startsWith('/edge/v1/')) return `${CLIENT_BASE}${path.slice('/edge/v1'.length)}${query}`;
  if (!/^\/(edge|fabric|\.well-known)(\/|$)/.test(path)) return `${CLIENT_BASE}${url}`;
  return url;
}

export function installRequestHooks(app: FastifyInstance, deps: AppDeps): void {
  app.decorateRequest('caller', null as unknown as RequestContext);
  app.addHook('onRequest', async (request, reply) => {
    allowCors(request, reply);
    const token = sessionToken(request.headers['zt-session']);
    const session = token ? await deps.apiSessions.resolve(token, bearerTokensOf(request.raw.rawHeaders)) : undefined;
    request.caller = {
      requestId: request.id,
      ip: request.ip,
      presentedToken: request.headers['zt-session'] !== undefined,
      session,
    };
    void reply.header('ziti-instance-id', deps.instanceId).header('server', `ziti-controller/${deps.build.version}`);
    if (session) {
      void reply.header('expiration-seconds', String(session.expirationSeconds)).header('expires-at', goTimeString(session.expiresAt));
    }
  });
  app.options('*', (_request, reply) =>
    reply
      .status(200)
      .header('access-control-allow-methods', 'GET, HEAD, POST, PUT, PATCH, DELETE')
      .header('access-control-allow-headers', 'content-type, accept, authorization, zt-session')
      .send(),
  );
}

/** Any origin, with credentials, as upstream's gorilla/handlers CORS set-up (ziti controller/api/cors.go). */
function allowCors(request: FastifyRequest, reply: FastifyReply): void {
  const origin = request.headers.origin;
  if (!origin) return;
  void reply.header('access-control-allow-origin', origin).header('access-control-allow-credentials', 'true').header('vary', 'Origin');
}

/** An unknown path is 404 NOT_FOUND; a known path with another verb is 405 METHOD_NOT_ALLOWED. */
export function installNotFound(app: FastifyInstance, routes: () => readonly BoundRoute[]): void {
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const methods = [...new Set(routes().filter((r) => r.pattern.test(path)).map((r) => r.method))];
    const requestId = request.caller?.requestId ?? request.id;
    if (methods.length > 0) {
      const message = `method ${request.method} is not allowed, but [${methods.join(',')}] are`;
      return sendError(reply, ApiError.withMessage('METHOD_NOT_ALLOWED', message), requestId);
    }
    return sendError(reply, ApiError.withMessage('NOT_FOUND', `path ${path} was not found`), requestId);
  });
}

/** Go's time.Time.String(): `2024-07-19 14:33:12.123 +0000 UTC`, the format of the expires-at header. */
export function goTimeString(date: Date): string {
  const iso = date.toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 23)} +0000 UTC`;
}
