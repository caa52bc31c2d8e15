// Renewal of an identity's controller-issued certificate (docs/reference/pki-enrollment-auth.md §10.1): `extend` signs
// a new certificate that waits beside the current one, `extend-verify` proves the client holds it and makes it current.
import 'reflect-metadata';
import { createPublicKey, X509Certificate } from 'node:crypto';
import {
  ExtendedKeyUsage,
  ExtendedKeyUsageExtension,
  KeyUsageFlags,
  KeyUsagesExtension,
  SubjectAlternativeNameExtension,
  X509Certificate as ParsedCertificate,
  type Extension,
} from '@peculiar/x509';
import { ApiError } from '../errors/api-error.js';
import { formatTimestamp, type Clock } from '../lib/clock.js';
import { emptyEnvelope, envelope } from '../http/envelope.js';
import type { OperationContext, OperationHandler, OperationTable } from '../http/operation.js';
import { clientCertificatesOf } from '../http/client-certificates.js';
import { deleteApiSessionCertificates } from '../store/queries/api-sessions.js';
import {
  authenticatorById,
  promotePendingCertificate,
  setPendingCertificate,
} from '../store/queries/authenticators.js';
import type { Db } from '../store/store.js';
import { certificateFingerprint } from '../pki/fingerprint.js';
import type { Pki } from '../pki/ensure-pki.js';
import { issueCertificate } from '../pki/issue-certificate.js';
import { splitPemCertificates } from '../pki/pem.js';
import { goSubject, lifetimes, parseCsr } from '../pki/sign-csr.js';
import { insertApiSessionCertificate } from './api-session-certificates.js';

interface CertAuthenticator {
  id: string;
  certPem: string;
  fingerprint: string;
  unverifiedCertPem: string | null;
  unverifiedFingerprint: string | null;
}

/**
 * The certificate authenticator to renew, checked before anything in the body is read: a missing one is 404, another
 * identity's 401 as upstream (`model/authenticator_manager.go` ExtendCertForIdentity), before its method is looked
 * at so nothing about it shows; a password authenticator, or one with no certificate stored, cannot be extended (409).
 */
async function renewableAuthenticator(db: Db, id: string, identityId: string): Promise<CertAuthenticator> {
  const row = await authenticatorById(db, id);
  if (!row) throw ApiError.notFound('authenticator', id);
  if (row.identity_id !== identityId) throw new ApiError('UNAUTHORIZED');
  if (row.method !== 'cert' || !row.cert_pem) throw new ApiError('CAN_NOT_UPDATE_AUTHENTICATOR');
  return {
    id,
    certPem: row.cert_pem,
    fingerprint: row.cert_fingerprint ?? '',
    unverifiedCertPem: row.unverified_cert_pem,
    unverifiedFingerprint: row.unverified_fingerprint,
  };
}

/**
 * The client must present the authenticator's current certificate in the handshake (401 otherwise), and only
 * certificates the edge signing CA issued directly can be renewed here (third-party CAs renew their own).
 */
function requirePresentedCertificate(context: OperationContext, authenticator: CertAuthenticator): X509Certificate {
  const presented = clientCertificatesOf(context.request).find(
    (certificate) => !certificate.ca && certificateFingerprint(certificate.raw) === authenticator.fingerprint,
  );
  if (!presented) throw new ApiError('UNAUTHORIZED');
  const signer = new X509Certificate(context.deps.pki.signingCertPem);
  if (!presented.checkIssued(signer) || !presented.verify(signer.publicKey)) {
    throw ApiError.withMessage(
      'CAN_NOT_UPDATE_AUTHENTICATOR',
      'only certificates issued by this controller can be extended',
    );
  }
  return presented;
}

/**
 * The identity-certificate profile of docs/reference/pki-enrollment-auth.md §1.3, with the current certificate's SANs
 * rather than the CSR's.
 */
async function issueExtension(
  deps: { clock: Clock; pki: Pki },
  csrPem: string,
  current: X509Certificate,
): Promise<string> {
  const csr = await parseCsr(csrPem);
  const extensions: Extension[] = [
    new KeyUsagesExtension(
      KeyUsageFlags.digitalSignature | KeyUsageFlags.keyEncipherment | KeyUsageFlags.dataEncipherment,
      true,
    ),
    new ExtendedKeyUsageExtension([ExtendedKeyUsage.clientAuth]),
  ];
  const altNames = new ParsedCertificate(new Uint8Array(current.raw)).getExtension(SubjectAlternativeNameExtension);
  if (altNames) extensions.push(new SubjectAlternativeNameExtension(altNames.names.toJSON()));
  const now = deps.clock().getTime();
  return issueCertificate({
    subject: goSubject(csr),
    subjectKey: createPublicKey({ key: Buffer.from(csr.publicKey.rawData), format: 'der', type: 'spki' }),
    issuerCertPem: deps.pki.signingCertPem,
    issuerKey: deps.pki.signingKey,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + lifetimes.year),
    extensions,
  });
}

/** The new certificate waits as the authenticator's unverified one; the current one keeps working until verify. */
const extendCurrentIdentityAuthenticator: OperationHandler<'extendCurrentIdentityAuthenticator'> = {
  access: 'authenticated',
  async handle(context) {
    const { deps, params, caller } = context;
    // Upstream's first check: no client certificate in the handshake at all is 401, whatever the id.
    if (!clientCertificatesOf(context.request).some((certificate) => !certificate.ca))
      throw new ApiError('UNAUTHORIZED');
    const authenticator = await deps.store.read((db) =>
      renewableAuthenticator(db, params.id, caller.session.identityId),
    );
    const current = requirePresentedCertificate(context, authenticator);
    const clientCert = await issueExtension(deps, context.body.clientCertCsr, current);
    const pending = { certPem: clientCert, fingerprint: certificateFingerprint(clientCert) };
    await deps.store.transaction((tx) =>
      setPendingCertificate(tx, authenticator.id, pending, formatTimestamp(deps.clock())),
    );
    return { status: 200, json: envelope({ ca: deps.pki.caBundlePem, clientCert }) };
  },
};

/**
 * The pending certificate becomes current at once (the old one stops working), and the API-session certificates
 * follow: the new one is bound to the caller's session, every session's record of the old one goes.
 */
const extendVerifyCurrentIdentityAuthenticator: OperationHandler<'extendVerifyCurrentIdentityAuthenticator'> = {
  access: 'authenticated',
  async handle({ deps, params, caller, body }) {
    const given = splitPemCertificates(body.clientCert);
    await deps.store.transaction(async (tx) => {
      const authenticator = await renewableAuthenticator(tx, params.id, caller.session.identityId);
      // Nothing waiting for verification: upstream's bare refusal, without a cause.
      if (!authenticator.unverifiedCertPem || !authenticator.unverifiedFingerprint)
        throw new ApiError('CAN_NOT_UPDATE_AUTHENTICATOR');
      const [only, ...more] = given;
      if (
        only === undefined ||
        more.length > 0 ||
        certificateFingerprintOrUndefined(only) !== authenticator.unverifiedFingerprint
      ) {
        throw new ApiError('INVALID_CLIENT_CERT');
      }
      const renewed = { certPem: authenticator.unverifiedCertPem, fingerprint: authenticator.unverifiedFingerprint };
      await promotePendingCertificate(tx, authenticator.id, renewed, formatTimestamp(deps.clock()));
      await deleteApiSessionCertificates(tx, authenticator.fingerprint);
      await insertApiSessionCertificate(tx, deps, caller.session.apiSessionId, authenticator.unverifiedCertPem);
    });
    return { status: 200, json: emptyEnvelope() };
  },
};

function certificateFingerprintOrUndefined(pem: string): string | undefined {
  try {
    return certificateFingerprint(pem);
  } catch {
    return undefined;
  }
}

/** Served by both APIs. */
export const currentIdentityCertificateOperations: OperationTable<'client' | 'management'> = {
  extendCurrentIdentityAuthenticator,
  extendVerifyCurrentIdentityAuthenticator,
};
