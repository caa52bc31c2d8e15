// `/enroll` and its per-method routes: one dispatcher that finds the enrollment behind the token and hands the
// request to that method's module (docs/reference/pki-enrollment-auth.md §3.1).
import { ApiError } from '../errors/api-error.js';
import { wrapHandler, type OperationContext, type OperationHandler, type OperationTable } from '../http/operation.js';
import { requireEnrollment } from './enrollment-record.js';
import { currentChangeContext, withChangeContext } from '../lib/change-context.js';
import { enrollWithOtt } from './methods/enroll-ott.js';
import { enrollWithOttCa } from './methods/enroll-ottca.js';
import { enrollWithCa } from './methods/enroll-ca.js';
import { enrollWithUpdb } from './methods/enroll-updb.js';
import { enrollRouter } from './methods/enroll-router.js';
import { extendRouterEnrollment } from './methods/extend-router.js';
import type { EnrollMethod } from './methods/enroll-method.js';
import { enrollmentChallenge, getEnrollmentJwks } from './enrollment-keys.js';

const byMethod: Readonly<Record<string, EnrollMethod>> = {
  ott: enrollWithOtt,
  ottca: enrollWithOttCa,
  updb: enrollWithUpdb,
  erott: enrollRouter,
  trott: enrollRouter,
};

/** The request content types the enroll handler reads; parameters after `;` do not matter. */
const READABLE_TYPES = ['application/json', 'text/plain', 'application/x-pem-file'];

function queryValue(context: OperationContext, name: string): string | undefined {
  const value = context.query[name] ?? context.rawQuery[name];
  const first: unknown = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' ? first : undefined;
}

const enroll: OperationHandler = {
  access: 'public',
  async handle(context) {
    const contentType = context.request.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
    if (contentType !== undefined && !READABLE_TYPES.includes(contentType)) {
      throw new ApiError(
        'INVALID_CONTENT_TYPE',
        undefined,
        `The content type supplied is not acceptable: ${contentType}`,
      );
    }
    // CA auto-enrollment has no token: the client certificate is the credential.
    if (queryValue(context, 'method') === 'ca') return enrollWithCa(context);
    const enrollment = await context.deps.store.read((db) =>
      requireEnrollment(db, queryValue(context, 'token'), context.deps.clock()),
    );
    const method = byMethod[enrollment.method];
    if (!method) throw new ApiError('INVALID_ENROLL_METHOD');
    // upstream attributes what an enrollment changes to the enrollee: the identity, or the router.
    const author = enrollment.routerId
      ? { type: 'router', id: enrollment.routerId }
      : enrollment.identityId
        ? { type: 'identity', id: enrollment.identityId }
        : undefined;
    if (!author) return method(context, enrollment);
    return withChangeContext({ ...currentChangeContext(), author }, () => method(context, enrollment));
  },
};

/**
 * Upstream writes a failure as JSON only when the client accepts it (no Accept, `*\/*` or `application/json`, q
 * ignored); otherwise with the format negotiated from `/enroll`'s produces list, and the PEM producer cannot write
 * an error: the status arrives with an empty `application/x-pem-file` body (ziti `api/responder.go`
 * RespondWithApiError, `canRespondWithJson`). Only `/enroll` produces PEM; the per-method routes produce JSON.
 */
function withPemErrors(handler: OperationHandler): OperationHandler {
  return wrapHandler(handler, async (run, context) => {
    try {
      return await run();
    } catch (error) {
      if (!(error instanceof ApiError) || !wantsPemOnly(context.request.headers.accept)) throw error;
      return { status: error.status, raw: '', contentType: 'application/x-pem-file' };
    }
  });
}

/** Go's comparison: media types as written (case and all), each header value split on commas. */
function wantsPemOnly(accept: string | string[] | undefined): boolean {
  const entries = (Array.isArray(accept) ? accept : accept === undefined ? [] : [accept]).flatMap((value) =>
    value.split(','),
  );
  const types = entries.map((entry) => {
    const [type = '', ...parameters] = entry.split(';').map((part) => part.trim());
    const q = parameters.find((parameter) => parameter.startsWith('q='));
    return { type, accepted: q === undefined || Number(q.slice(2)) > 0 };
  });
  if (types.length === 0 || types.some(({ type }) => type === '*/*' || type === 'application/json')) return false;
  return types.some(
    ({ type, accepted }) => accepted && (type === 'application/x-pem-file' || type === 'application/*'),
  );
}

export const enrollOperations: OperationTable<'client'> = {
  enroll: withPemErrors(enroll),
  // Upstream wires the per-method routes to the same handler, which still reads token and method from the query.
  enrollOtt: enroll,
  enrollOttCa: enroll,
  enrollUpdb: enroll,
  enrollErOtt: enroll,
  enrollCa: { access: 'public', handle: (context) => enrollWithCa(context) },
  extendRouterEnrollment,
  getEnrollmentJwks,
  enrollmentChallenge,
};
