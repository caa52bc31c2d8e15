// The only catch-all: renders any failure as the upstream error envelope and logs it once.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors/api-error.js';
import { fabricFrameworkErrorMeta, versionMeta } from './envelope.js';
import { errorMessage } from '../lib/error-message.js';

export type ErrorMeta = typeof versionMeta | typeof fabricFrameworkErrorMeta;

/** Requests whose operation passed request validation, so that what they fail with is their handler's answer. */
export const reachedHandler = new WeakSet<FastifyRequest>();

export function errorBody(error: ApiError, requestId: string, meta: ErrorMeta = versionMeta): string {
  const body: Record<string, unknown> = {};
  if (error.cause) body.cause = error.cause;
  body.code = error.code;
  body.message = error.message;
  body.requestId = requestId;
  return `${JSON.stringify({ error: body, meta })}\n`;
}

export function sendError(reply: FastifyReply, error: ApiError, requestId: string, meta?: ErrorMeta): FastifyReply {
  // Bytes, not text: see sendJsonText in bind-operations.ts.
  return reply
    .status(error.status)
    .header('content-type', 'application/json')
    .send(Buffer.from(errorBody(error, requestId, meta)));
}

/** Translates framework errors (body limits, malformed JSON, unexpected throws) into catalogue errors. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const code = error instanceof Error && 'code' in error ? error.code : undefined;
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE')
    return ApiError.withMessage('COULD_NOT_PARSE_BODY', 'request body is too large');
  if (code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return ApiError.withMessage('COULD_NOT_PARSE_BODY', errorMessage(error));
  }
  if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return ApiError.invalidField('Content-Type', errorMessage(error), '');
  }
  return ApiError.withMessage('UNHANDLED', 'an unexpected error occurred');
}

export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const apiError = toApiError(error);
    const requestId = request.caller?.requestId ?? request.id;
    // A fabric request refused before its handler ran (its body or parameters) was refused by go-openapi upstream.
    const operation = request.routeOptions.config?.operation;
    const meta = operation?.api === 'fabric' && !reachedHandler.has(request) ? fabricFrameworkErrorMeta : versionMeta;
    // Only a real server failure is an error with its stack; an unbuilt operation (501) or a refused request is
    // what the controller is meant to answer, so it is a debug line that names the code.
    if (apiError.status >= 500 && apiError.code !== 'NOT_IMPLEMENTED')
      request.log.error({ err: error, requestId }, 'request failed');
    else request.log.debug({ code: apiError.code, status: apiError.status, requestId }, 'request refused');
    return sendError(reply, apiError, requestId, meta);
  });
}

/**
 * Fastify's own routing failures, before any hook runs. In practice a path with a bad percent escape (`/x/%zz`),
 * which upstream's Go server refuses while parsing the request line: a plain-text 400, no envelope.
 */
export function onFrameworkError(_error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  void reply
    .code(400)
    .header('content-type', 'text/plain; charset=utf-8')
    .header('connection', 'close')
    .send('400 Bad Request');
}
