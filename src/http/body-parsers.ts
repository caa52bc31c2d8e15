// Request body parsing: JSON (an empty body is "no body"), and any other type kept as text for the validator.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../errors/api-error.js';
import { bodyNaming, unparsableBodyReason } from './spec/body-errors.js';
import { errorMessage } from '../lib/error-message.js';

/**
 * How deep arrays and objects may nest in a JSON body. Go's decoder allows 10,000 levels, but SQLite's JSON
 * functions stop at 1,000 and V8's JSON.stringify and ajv recurse, so a deeper value would fail later as a 500;
 * no body a client sends comes near this.
 */
export const MAX_JSON_DEPTH = 500;

/**
 * The bracket at which arrays and objects nest deeper than `limit`, or undefined: one pass over the text, before
 * it is parsed.
 */
export function tooDeepAt(text: string, limit: number): string | undefined {
  if (text.length <= limit) return undefined;
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c)
        index++; // backslash: skip the escaped character
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x5b || code === 0x7b) {
      if (++depth > limit) return text[index];
    } else if (code === 0x5d || code === 0x7d) depth--;
  }
  return undefined;
}

/** How the operation's contract names the body, for the messages of a body that does not parse. */
function namingOf(request: FastifyRequest) {
  const operation = request.routeOptions.config?.operation;
  const parameter = operation?.parameters.find((p) => p.in === 'body');
  return operation && parameter ? bodyNaming(operation, parameter) : undefined;
}

export function installBodyParsers(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(/^application\/json(;.*)?$/i, { parseAs: 'string' }, (request, body, done) => {
    const text = String(body);
    // The C SDK sends an empty body with Content-Type: application/json (MFA enroll): treat it as no body.
    if (text.trim() === '') return done(null, undefined);
    const deepAt = tooDeepAt(text, MAX_JSON_DEPTH);
    if (deepAt !== undefined) {
      // Worded as Go's decoder words it (it stops at 10,000 levels; see MAX_JSON_DEPTH for ours).
      const reason = `invalid character '${deepAt}' exceeded max depth`;
      return done(
        ApiError.withMessage('COULD_NOT_PARSE_BODY', `parsing body body from "" failed, because ${reason}`),
        undefined,
      );
    }
    try {
      done(null, JSON.parse(text));
    } catch (error) {
      done(
        ApiError.withMessage('COULD_NOT_PARSE_BODY', unparsableBodyReason(namingOf(request), errorMessage(error))),
        undefined,
      );
    }
  });
  // PEM CSRs (text/plain, application/x-pem-file, application/pkcs10) and anything else: the contract check
  // decides whether the operation accepts that type, so the parser never refuses one itself.
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => {
    const text = String(body);
    done(null, text === '' ? undefined : text);
  });
}
