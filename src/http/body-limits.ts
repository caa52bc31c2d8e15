// Request body caps by route class, applied before a byte of the body is read: requests that need no session (or
// come without one) get the small cap, authenticated ones to operations that take a body the larger one.
import { Readable, Transform, type TransformCallback } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors/api-error.js';
import type { Settings } from '../settings/settings.schema.js';
import type { OperationSpec } from './spec/load-spec.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The contract operation a route serves (absent on the 404 and CORS routes). */
    operation?: OperationSpec;
  }
}

export type BodyLimitSettings = Pick<Settings, 'unauthenticatedBodyLimit' | 'authenticatedBodyLimit'>;

/**
 * Upstream validates a body before it checks the session, so without a session every operation would parse and
 * validate whatever it is sent: the large cap needs both a session and an operation that requires one.
 */
export function bodyLimitFor(op: OperationSpec, request: FastifyRequest, settings: BodyLimitSettings): number {
  const takesBody = op.parameters.some((parameter) => parameter.in === 'body');
  return takesBody && !op.isPublic && request.caller.session
    ? settings.authenticatedBodyLimit
    : settings.unauthenticatedBodyLimit;
}

/**
 * Over the cap by Content-Length: refused before reading. Chunked: cut when the cap is passed. Either way 400
 * COULD_NOT_PARSE_BODY (every operation that takes a body declares 400), and the connection closes, so the rest
 * of the body is never read. Requests that match no operation (404, 405, CORS preflight) have their body
 * ignored unread, as upstream ignores it.
 */
export function installBodyLimits(app: FastifyInstance, settings: BodyLimitSettings): void {
  app.addHook('preParsing', (request, reply, payload, done) => {
    const op = request.routeOptions.config.operation;
    const declared = request.headers['content-length'];
    // Without Content-Length and Transfer-Encoding a request has no body (RFC 9112 §6.3): how browsers send a CORS
    // preflight, which must not cost the console a new connection.
    const hasBody = declared === undefined ? request.headers['transfer-encoding'] !== undefined : declared !== '0';
    if (!op) {
      // The body is left unread: the connection cannot serve another request after it.
      if (hasBody) void reply.header('connection', 'close');
      // Fastify compares what the stream says it received with Content-Length.
      return done(null, Object.assign(Readable.from([]), { receivedEncodedLength: Number(declared ?? 0) }));
    }
    // A GET or HEAD without a body is most requests, and needs no counting stream. (inject() streams a body without
    // either header, so other methods still count what comes.)
    if (!hasBody && bodyless.has(request.method)) return done(null, payload);
    const limit = bodyLimitFor(op, request, settings);
    if (declared !== undefined) {
      // Node reads exactly Content-Length bytes as the body, so a body within it cannot grow past it.
      if (Number(declared) > limit) return done(tooLarge(reply, limit));
      return done(null, payload);
    }
    const capped = new LengthCap(limit, () => tooLarge(reply, limit));
    // pipe() does not pass on a client's abort; the parser waiting on `capped` must see it.
    payload.once('error', (error) => capped.destroy(error));
    done(null, payload.pipe(capped));
  });
}

const bodyless = new Set(['GET', 'HEAD']);

function tooLarge(reply: FastifyReply, limit: number): ApiError {
  void reply.header('connection', 'close');
  return ApiError.withMessage(
    'COULD_NOT_PARSE_BODY',
    `request body is too large: the limit for this request is ${limit} bytes`,
  );
}

/** Passes bytes through until more than `limit` have come, then fails with `refuse()`. */
class LengthCap extends Transform {
  #received = 0;

  constructor(
    readonly limit: number,
    readonly refuse: () => Error,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.#received += chunk.length;
    if (this.#received > this.limit) callback(this.refuse());
    else callback(null, chunk);
  }
}
