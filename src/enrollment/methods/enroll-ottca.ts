// `ottca` (docs/reference/pki-enrollment-auth.md §3.4): a one-time token plus a client certificate from the third-party
// CA the token names becomes that identity's `cert` authenticator. The CA must be verified (quirk Q13: upstream does
// not check).
import type { X509Certificate } from 'node:crypto';
import type { EntityDeps } from '../../app-deps.js';
import { ApiError } from '../../errors/api-error.js';
import { emptyEnvelope } from '../../http/envelope.js';
import { clientCertificatesOf } from '../../http/client-certificates.js';
import { authenticatorWithFingerprint } from '../../store/queries/authenticators.js';
import { caById } from '../../store/queries/cas.js';
import type { Db } from '../../store/store.js';
import { createEntityIn } from '../../crud/entity-writes.js';
import { authenticator } from '../../entities/authenticator/authenticator.definition.js';
import { certificateFingerprint } from '../../pki/fingerprint.js';
import { derToPem } from '../../pki/pem.js';
import { anchorsFromPem, verifyPath } from '../../auth/trust.js';
import type { EnrollMethod } from './enroll-method.js';
import { consumeEnrollment } from '../enrollment-record.js';

/** A certificate binds to one authenticator only (upstream cause data: the fingerprint). */
export async function requireUnusedFingerprint(tx: Db, fingerprint: string): Promise<void> {
  if (await authenticatorWithFingerprint(tx, fingerprint))
    throw ApiError.withMessage('CERT_IN_USE', `the certificate with fingerprint ${fingerprint} is already in use`);
}

/**
 * A `cert` authenticator for a third-party certificate the enrollment verified, made by the authenticator rules (one
 * per identity) and tied to its CA so that deleting the CA removes it.
 */
export async function insertCaAuthenticator(
  tx: Db,
  deps: EntityDeps,
  input: { identityId: string; certificate: X509Certificate; caId: string },
): Promise<void> {
  const body = {
    method: 'cert',
    identityId: input.identityId,
    certPem: derToPem(input.certificate.raw, 'CERTIFICATE'),
  };
  await createEntityIn(tx, deps, authenticator, body, { verifiedByCaId: input.caId });
}

export const enrollWithOttCa: EnrollMethod = async (context, enrollment) => {
  const { deps } = context;
  const identityId = enrollment.identityId;
  const caId = enrollment.caId;
  if (identityId === null || caId === null) throw new ApiError('INVALID_ENROLLMENT_TOKEN');
  // Each presented certificate on its own against the CA, no intermediates; CA certificates in the chain are skipped.
  const presented = clientCertificatesOf(context.request).filter((certificate) => !certificate.ca);
  const now = deps.clock();
  await deps.store.transaction(async (tx) => {
    const ca = await caById(tx, caId);
    if (!ca) throw new ApiError('INVALID_ENROLLMENT_TOKEN');
    if (ca.is_ott_ca_enrollment_enabled !== 1 || ca.is_verified !== 1) throw new ApiError('ENROLLMENT_CA_NOT_VALID');
    const anchors = anchorsFromPem(ca.cert_pem, caId);
    const certificate = presented.find((candidate) =>
      verifyPath(candidate, [], anchors, { now, checkLeafValidity: true, requireClientAuth: true }),
    );
    if (!certificate) throw new ApiError('CERT_FAILED_VALIDATION');
    await requireUnusedFingerprint(tx, certificateFingerprint(certificate.raw));
    await consumeEnrollment(tx, enrollment);
    await insertCaAuthenticator(tx, deps, { identityId, certificate, caId });
  });
  return { status: 200, json: emptyEnvelope() };
};
