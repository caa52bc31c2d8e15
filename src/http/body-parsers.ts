// Request body parsing: JSON (an empty body is "no body"), and any other type kept as text for the validator.
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors/api-error.js';

export function installBodyParsers(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(/^application\/json(;.*)?$/i, { parseAs: 'string' }, (_request, body, done) => {
    const text = String(body);
    // The C SDK sends an empty body with Content-Type: application/json (MFA enroll): treat it as no body.
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch (error) {
      const reason = (error as Error).message;
      done(ApiError.withMessage('COULD_NOT_PARSE_BODY', `parsing body body from "" failed, because ${reason}`), undefined);
    }
  });
  // PEM CSRs (text/plain, application/x-pem-file, application/pkcs10) and anything else: the contract check
  // decides whether the operation accepts that type, so the parser never refuses one itself.
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => {
    const text = String(body);
    done(null, text === '' ? undefined : text);
  });
}
