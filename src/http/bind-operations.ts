// Binds every contract operation to its handler (or to 501 NOT_IMPLEMENTED) under the API's base path.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors/api-error.js';
import { admitCaller, defaultAccess } from './access.js';
import type { AppDeps } from '../app-deps.js';
import { serializeJson } from './envelope.js';
import { reachedHandler } from './error-response.js';
import { cleanPath } from './request-path.js';
import type { OperationHandler, OperationResult, OperationTable } from './operation.js';
import { loadContract, validateRequest, type ApiName, type OperationSpec } from './spec/load-spec.js';
import { withChangeContext, type ChangeContext } from '../lib/change-context.js';

/** What Fastify's router and query parser give every bound route (path parameters and the raw query string values). */
interface RawRequest {
  Params: Record<string, string>;
  Querystring: Record<string, string | string[] | undefined>;
}

export interface BoundRoute {
  method: string;
  pattern: RegExp;
}

/** Binds one API; fails at boot if the table names an operation the contract does not have. */
export function bindOperations<Api extends ApiName>(
  app: FastifyInstance,
  deps: AppDeps,
  api: Api,
  table: OperationTable<Api>,
): BoundRoute[] {
  const contract = loadContract(api);
  const known = new Set(contract.operations.map((op) => op.operationId));
  // Each handler is typed by its operation's generated types, which describe what validateRequest lets through for
  // that operation; the binder looks handlers up by the contract's id and hands them the validated request.
  const handlers = table as Readonly<Record<string, OperationHandler | undefined>>;
  const unknown = Object.keys(handlers).filter((id) => !known.has(id));
  if (unknown.length > 0)
    throw new Error(`${api} operation table names operations the contract lacks: ${unknown.join(', ')}`);

  return contract.operations.map((op) => {
    const handler = handlers[op.operationId] ?? notImplemented(op);
    // Bound at the cleaned path, which is what requests are routed by (request-path.ts).
    const url = cleanPath(`${contract.basePath}${op.routePath}`);
    app.route<RawRequest>({
      method: op.method,
      url,
      config: { operation: op },
      handler: (request, reply) => runOperation(deps, api, op, handler, request, reply),
    });
    return { method: op.method, pattern: routePattern(url) };
  });
}

/** Operations without a handler yet: validated and access-checked like the rest, then a declared 501. */
export function notImplemented(op: OperationSpec): OperationHandler {
  return {
    access: defaultAccess(op),
    handle: () =>
      Promise.reject(ApiError.withMessage('NOT_IMPLEMENTED', `operation ${op.operationId} is not implemented yet`)),
  };
}

async function runOperation(
  deps: AppDeps,
  api: ApiName,
  op: OperationSpec,
  handler: OperationHandler,
  request: FastifyRequest<RawRequest>,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const rawQuery = request.query;
  const validated = validateRequest(op, {
    params: request.params,
    query: rawQuery,
    headers: request.headers,
    body: request.body,
    contentType: request.headers['content-type'],
    hasBody: request.body !== undefined,
  });
  if (!validated.ok) {
    // A JSON value of the wrong type fails while decoding upstream, so it is a parse error there too.
    throw validated.kind === 'parse'
      ? ApiError.withMessage('COULD_NOT_PARSE_BODY', validated.cause.reason)
      : new ApiError('COULD_NOT_VALIDATE', validated.cause);
  }
  reachedHandler.add(request);
  const { params, query, headers, body } = validated.value;
  const context = { deps, api, params, query, rawQuery, headers, body, request, reply };
  const result = await withChangeContext(changeContextOf(api, request), () =>
    handler.access === 'public'
      ? handler.handle({ ...context, caller: request.caller })
      : handler.handle({ ...context, caller: admitCaller(handler.access, request.caller, api) }),
  );
  return sendResult(reply, result);
}

/**
 * Who the request's changes are by and through what, as upstream's request contexts write them
 * (response/context.go NewChangeContext): the caller's identity, else unattributed; REST, by API.
 */
function changeContextOf(api: ApiName, request: FastifyRequest<RawRequest>): ChangeContext {
  const session = request.caller.session;
  const trace = request.query.traceId;
  return {
    author: session ? { type: 'identity', id: session.identityId } : { type: 'unattributed' },
    source: {
      type: 'rest',
      auth: api === 'fabric' ? 'fabric' : 'edge',
      method: request.method,
      ...(request.headers.host ? { localAddr: request.headers.host } : {}),
      // Go's net.Addr text: an IPv6 host in brackets.
      remoteAddr: `${request.ip.includes(':') ? `[${request.ip}]` : request.ip}:${request.socket.remotePort ?? 0}`,
    },
    ...(typeof trace === 'string' ? { traceId: trace } : {}),
  };
}

export function sendResult(reply: FastifyReply, result: OperationResult): FastifyReply {
  if (result.headers) void reply.headers(result.headers);
  if ('json' in result) return sendJsonText(reply, result.status, serializeJson(result.json));
  if (result.contentType === 'application/json' && typeof result.raw === 'string')
    return sendJsonText(reply, result.status, result.raw);
  return reply.status(result.status).header('content-type', result.contentType).send(result.raw);
}

/**
 * Sent as bytes: Fastify appends `; charset=utf-8` to JSON text payloads, and the SDKs compare the content type
 * as an exact string.
 */
export function sendJsonText(reply: FastifyReply, status: number, text: string): FastifyReply {
  return reply.status(status).header('content-type', 'application/json').send(Buffer.from(text));
}

/** `/edge/management/v1/identities/:id` → a regex over concrete paths, used to tell 405 from 404. */
function routePattern(url: string): RegExp {
  const escaped = url
    .split('/')
    .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  return new RegExp(`^${escaped.join('/')}$`);
}
