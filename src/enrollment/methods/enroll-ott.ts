// `ott`: a one-time token and a CSR become a controller-issued client certificate and a `cert` authenticator.
import { ApiError } from '../../errors/api-error.js';
import { envelope } from '../../http/envelope.js';
import type { OperationContext, OperationResult } from '../../http/operation.js';
import { createEntityIn } from '../../crud/entity-writes.js';
import { lifetimes, signCsr, type IssuedCertificate } from '../../pki/sign-csr.js';
import { authenticator } from '../../entities/authenticator/authenticator.definition.js';
import type { EnrollMethod } from './enroll-method.js';
import { consumeEnrollment } from '../enrollment-record.js';

/** Whether the client listed `application/json` itself (the C SDK does); `*\/*` or nothing means PEM. */
function acceptsJson(context: OperationContext): boolean {
  const accept = context.request.headers.accept ?? '';
  return accept.split(',').some((part) => part.split(';')[0]?.trim().toLowerCase() === 'application/json');
}

/**
 * The SDKs compare the content type as an exact string (docs/reference/pki-enrollment-auth.md §3.2): the Go SDK and CLI
 * send no Accept and read the leaf PEM as `application/x-pem-file`; the C SDK sends `Accept: application/json` and
 * reads `data.cert`, the leaf followed by the signing CA so it can build a path to the root from the EST bundle.
 */
function certificateResponse(context: OperationContext, issued: IssuedCertificate): OperationResult {
  if (acceptsJson(context)) return { status: 200, json: envelope({ cert: issued.chainPem }) };
  return { status: 200, raw: Buffer.from(issued.certPem), contentType: 'application/x-pem-file' };
}

export const enrollWithOtt: EnrollMethod = async (context, enrollment) => {
  const { deps } = context;
  const identityId = enrollment.identityId;
  if (identityId === null) throw new ApiError('INVALID_ENROLLMENT_TOKEN');
  // The CSR's SANs are ignored and its CN is not checked, as upstream (clients put the identity id there).
  const issued = await signCsr(deps.pki, context.body, {
    use: 'client',
    now: deps.clock(),
    lifetimeMs: lifetimes.year,
    keepAltNames: false,
    backdate: true,
  });
  await deps.store.transaction(async (tx) => {
    // Consumed first: a token redeemed twice at once issues two certificates but binds only one.
    await consumeEnrollment(tx, enrollment);
    // Through the authenticator rules: a second certificate authenticator for the identity is refused (409).
    await createEntityIn(
      tx,
      deps,
      authenticator,
      { method: 'cert', identityId, certPem: issued.certPem },
      { id: deps.ids.shortId(), verifiedByCaId: null },
    );
  });
  return certificateResponse(context, issued);
};
