// CA operations: CRUD, the CA's auto-enrollment JWT, and proof of possession of the CA's key (verify).
import 'reflect-metadata';
import { X509Certificate } from 'node:crypto';
import { X509Certificate as ParsedCertificate } from '@peculiar/x509';
import { SignJWT } from 'jose';
import { ApiError } from '../../errors/api-error.js';
import { markCaVerified } from '../../store/queries/cas.js';
import { formatTimestamp } from '../../lib/clock.js';
import { emptyEnvelope } from '../../http/envelope.js';
import type { OperationHandler, OperationTable } from '../../http/operation.js';
import { create, detail, list, patch, remove, update } from '../../crud/crud-handlers.js';
import { requireEntity } from '../../crud/entity-writes.js';
import { issuerUrl, jwtAlgorithm } from '../../enrollment/enrollment-jwt.js';
import { anchorsFromPem, verifyPath } from '../../auth/trust.js';
import { splitPemCertificates } from '../../pki/pem.js';
import { ca } from './ca.definition.js';

/**
 * The JWT SDKs enroll with against this CA (`em: ca`, docs/reference/pki-enrollment-auth.md §2.1): upstream's issuer
 * here has a trailing slash, `sub` and `jti` are the CA id, and there is no `exp` or `aud` because the token is not
 * one-time.
 */
const getCaJwt: OperationHandler<'getCaJwt'> = {
  access: 'admin',
  async handle({ deps, params: { id } }) {
    await deps.store.read((db) => requireEntity(db, ca, id));
    const payload = { iss: `${issuerUrl(deps.settings)}/`, sub: id, jti: id, em: 'ca', ctrls: null };
    const jwt = await new SignJWT(payload)
      .setProtectedHeader({ alg: jwtAlgorithm(deps.pki), kid: deps.pki.serverCertFingerprint, typ: 'JWT' })
      .sign(deps.pki.serverKey);
    return { status: 200, raw: jwt, contentType: 'application/jwt' };
  },
};

/** The first PEM block of a body, with its type, or undefined when the body holds none. */
function firstPemBlock(text: string): { type: string; der: Buffer } | undefined {
  const [, type, base64] = /-----BEGIN ([A-Z0-9 ]+)-----([A-Za-z0-9+/=\s]*?)-----END \1-----/.exec(text) ?? [];
  return type !== undefined && base64 !== undefined
    ? { type, der: Buffer.from(base64.replace(/\s+/g, ''), 'base64') }
    : undefined;
}

/** Go's `Subject.CommonName`: the last CN attribute. */
function commonNameOf(der: Buffer): string | undefined {
  return new ParsedCertificate(new Uint8Array(der)).subjectName.getField('CN').at(-1);
}

/**
 * Proof that the operator holds the CA's key: a certificate the CA signed whose CN is the verification token.
 * The checks and codes follow upstream's `VerifyCert` (`controller/internal/routes/ca_router.go`) in order.
 */
const verifyCa: OperationHandler<'verifyCa'> = {
  access: 'admin',
  async handle({ deps, params: { id }, body }) {
    const found = await deps.store.read((db) => requireEntity(db, ca, id));
    if (found.isVerified) throw new ApiError('CA_ALREADY_VERIFIED');
    const block = firstPemBlock(body);
    // Upstream answers this one without a cause.
    if (!block) throw new ApiError('COULD_NOT_PARSE_BODY');
    if (block.type !== 'CERTIFICATE')
      throw ApiError.withMessage('EXPECTED_PEM_CERTIFICATE', `encountered PEM block type ${block.type}`);
    let certificate: X509Certificate;
    try {
      certificate = new X509Certificate(block.der);
    } catch (error) {
      throw ApiError.withMessage('COULD_NOT_PARSE_DER_BLOCK', error instanceof Error ? error.message : String(error));
    }
    if (commonNameOf(block.der) !== found.verificationToken) throw new ApiError('INVALID_COMMON_NAME');
    const [caCertificate] = splitPemCertificates(typeof found.certPem === 'string' ? found.certPem : '');
    const now = deps.clock();
    const anchors = anchorsFromPem(caCertificate ?? '', id);
    if (!verifyPath(certificate, [], anchors, { now, checkLeafValidity: true, requireClientAuth: false })) {
      throw new ApiError('CERTIFICATE_FAILED_VALIDATION');
    }
    await deps.store.transaction(async (tx) => {
      if (!(await markCaVerified(tx, id, formatTimestamp(now)))) throw new ApiError('CA_ALREADY_VERIFIED');
    });
    return { status: 200, json: emptyEnvelope() };
  },
};

export const caOperations: OperationTable<'management'> = {
  listCas: list(ca, 'admin'),
  createCa: create(ca, 'admin'),
  detailCa: detail(ca, 'admin'),
  updateCa: update(ca, 'admin'),
  patchCa: patch(ca, 'admin'),
  // Enrollments and certificate authenticators of the CA go with it (ON DELETE CASCADE, migration 008).
  deleteCa: remove(ca, 'admin'),
  getCaJwt,
  verifyCa,
};
