// Per-request plumbing shared by both APIs: caller resolution, response headers, CORS, 404/405.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors/api-error.js';
import type { AppDeps } from '../app-deps.js';
import type { BoundRoute } from './bind-operations.js';
import type { RequestTracker } from './connection-limits.js';
import { fabricFrameworkErrorMeta, isFabricPath, versionMeta } from './envelope.js';
import { sendError } from './error-response.js';
import { routedPath, rewritePath } from './request-path.js';
import { sessionToken, type CallerSession, type RequestContext } from './request-context.js';
import { goTime } from '../lib/go-format.js';
import { LoopTurns } from './loop-turns.js';
import { bearerTokensOf } from '../lib/bearer-tokens.js';
import { asError } from '../lib/error-message.js';

declare module 'fastify' {
  interface FastifyRequest {
    caller: RequestContext;
  }
}

/** What identifying the caller reads: the store (refreshed first), the sessions, and what the reply's headers name. */
type CallerDeps = Pick<AppDeps, 'store' | 'apiSessions' | 'instanceId' | 'build'>;

/** What else runs at a request's start and after its reply, inside the one hook of each kind (Fastify's hook runs cost more than their work). */
export interface RequestHookParts {
  tracker: RequestTracker;
  /** After the reply: access log and metrics (request-observer.ts). */
  observe: ((request: FastifyRequest, reply: FastifyReply) => void) | undefined;
}

export function installRequestHooks(
  app: FastifyInstance,
  deps: CallerDeps,
  { tracker, observe }: RequestHookParts,
): void {
  // Fastify wants an initial value; the onRequest hook below sets the caller before anything reads it.
  app.decorateRequest('caller', null as unknown as RequestContext);
  const turns = new LoopTurns();
  const start = (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void): void => {
    allowCors(request, reply);
    // Commits other instances made before this request began invalidate what this one has cached.
    deps.store
      .refresh()
      .then(() => identifyCaller(deps, request, reply))
      .then(
        () => done(),
        (error: unknown) => done(asError(error ?? new Error('the request could not be identified'))),
      );
  };
  app.addHook('onRequest', (request, reply, done) => {
    tracker.started(request);
    // Under load a request may wait for a later turn of the event loop (loop-turns.ts).
    const turn = turns.enter();
    if (turn) void turn.then(() => start(request, reply, done));
    else start(request, reply, done);
  });
  app.addHook('onResponse', (request, reply, done) => {
    tracker.ended(request);
    observe?.(request, reply);
    done();
  });
  app.options('*', (_request, reply) =>
    reply
      .status(200)
      .header('access-control-allow-methods', 'GET, HEAD, POST, PUT, PATCH, DELETE')
      .header('access-control-allow-headers', 'content-type, accept, authorization, zt-session')
      .send(),
  );
}

/** `request.caller` and the session's response headers. */
async function identifyCaller(deps: CallerDeps, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const token = sessionToken(request.headers['zt-session']);
  const session = token ? await deps.apiSessions.resolve(token, bearerTokensOf(request.raw.rawHeaders)) : undefined;
  setCaller(deps, request, reply, session);
}

function setCaller(
  deps: CallerDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  session: CallerSession | undefined,
): void {
  request.caller = {
    requestId: request.id,
    ip: request.ip,
    presentedToken: request.headers['zt-session'] !== undefined,
    session,
  };
  void reply.header('ziti-instance-id', deps.instanceId).header('server', `ziti-controller/${deps.build.version}`);
  if (session) {
    void reply
      .header('expiration-seconds', String(session.expirationSeconds))
      .header('expires-at', goTime(session.expiresAt));
  }
}

/** Any origin, with credentials, as upstream's gorilla/handlers CORS set-up (ziti controller/api/cors.go). */
function allowCors(request: FastifyRequest, reply: FastifyReply): void {
  const origin = request.headers.origin;
  if (!origin) return;
  void reply
    .header('access-control-allow-origin', origin)
    .header('access-control-allow-credentials', 'true')
    .header('vary', 'Origin');
}

/** An unknown path is 404 NOT_FOUND; a known path with another verb is 405 METHOD_NOT_ALLOWED. */
export function installNotFound(app: FastifyInstance, routes: () => readonly BoundRoute[]): void {
  app.setNotFoundHandler((request, reply) => {
    const rawPath = request.originalUrl.split('?')[0] ?? '/';
    const path = routedPath(rawPath);
    const methods = [
      ...new Set(
        routes()
          .filter((r) => r.pattern.test(path))
          .map((r) => r.method),
      ),
    ];
    const requestId = request.caller?.requestId ?? request.id;
    const meta = isFabricPath(path) ? fabricFrameworkErrorMeta : versionMeta;
    if (methods.length > 0) {
      const message = `method ${request.method} is not allowed, but [${methods.join(',')}] are`;
      return sendError(reply, ApiError.withMessage('METHOD_NOT_ALLOWED', message), requestId, meta);
    }
    // Upstream names the path as its handler rewrote it, before the router cleaned it.
    return sendError(
      reply,
      ApiError.withMessage('NOT_FOUND', `path ${rewritePath(rawPath)} was not found`),
      requestId,
      meta,
    );
  });
}
