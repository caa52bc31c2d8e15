// `POST /authenticate?method=cert` (reference §4.3): the TLS client certificate must chain to the controller's
// CAs or a verified third-party CA with auth enabled, and name an identity by fingerprint or by external id.
import type { X509Certificate } from 'node:crypto';
import type { AppDeps } from '../app-deps.js';
import { ApiError } from '../errors/api-error.js';
import { formatTimestamp } from '../lib/clock.js';
import type { OperationContext } from '../http/operation.js';
import { clientCertificatesOf } from '../http/client-certificates.js';
import type { Db } from '../store/store.js';
import { certificateFingerprint } from '../pki/fingerprint.js';
import { derToPem } from '../pki/pem.js';
import { insertApiSessionCertificate } from './api-session-certificates.js';
import { externalIdOf, type ExternalIdClaim } from './external-id-claim.js';
import { isValidAt, loginAnchors, verifyPath } from './trust.js';

export interface CertificateCredential {
  identityId: string;
  /** The cert authenticator, or upstream's `internal` for an identity found by external id. */
  authenticatorId: string;
  leafPem: string;
  /** The authenticator had no certificate stored yet (created with a fingerprint only); it gets this one. */
  storesPem: boolean;
}

/** Every failure is the same 401 INVALID_AUTH, whatever went wrong. */
const invalidAuth = () => new ApiError('INVALID_AUTH');

interface Holder {
  identityId: string;
  authenticatorId: string;
  storesPem: boolean;
}

/** The identity a trusted certificate names: by the CA's external-id claim when it yields one, else by fingerprint. */
async function findHolder(db: Db, leafPem: string, caId: string | undefined): Promise<Holder | undefined> {
  if (caId !== undefined) {
    const found = await db.selectFrom('cas').select('external_id_claim').where('id', '=', caId).executeTakeFirst();
    const claim = found?.external_id_claim ? (JSON.parse(found.external_id_claim as string) as ExternalIdClaim) : undefined;
    const externalId = claim ? externalIdOf(leafPem, claim) : undefined;
    if (externalId !== undefined) {
      const identity = await db.selectFrom('identities').select('id').where('external_id', '=', externalId).executeTakeFirst();
      return identity && { identityId: identity.id as string, authenticatorId: 'internal', storesPem: false };
    }
  }
  // cert_fingerprint is UNIQUE, so this is one index probe.
  const authenticator = await db
    .selectFrom('authenticators')
    .select(['id', 'identity_id', 'cert_pem'])
    .where('cert_fingerprint', '=', certificateFingerprint(leafPem))
    .where('method', '=', 'cert')
    .executeTakeFirst();
  return authenticator && { identityId: authenticator.identity_id as string, authenticatorId: authenticator.id as string, storesPem: !authenticator.cert_pem };
}

/** Disabled identities, policies without certificate login, and expired certificates under a strict policy fail. */
async function requireCertLoginAllowed(db: Db, identityId: string, leaf: X509Certificate, now: Date): Promise<void> {
  const row = await db
    .selectFrom('identities as i')
    .innerJoin('auth_policies as p', 'p.id', 'i.auth_policy_id')
    .select(['i.disabled_at', 'i.disabled_until', 'p.primary_cert_allowed', 'p.primary_cert_allow_expired_certs'])
    .where('i.id', '=', identityId)
    .executeTakeFirst();
  if (!row || row.primary_cert_allowed !== 1) throw invalidAuth();
  const disabled = row.disabled_at !== null && (row.disabled_until === null || Date.parse(row.disabled_until as string) > now.getTime());
  if (disabled) throw invalidAuth();
  if (row.primary_cert_allow_expired_certs !== 1 && !isValidAt(leaf, now)) throw invalidAuth();
}

/**
 * Checks the presented chain (leaf first, the rest untrusted intermediates). The leaf's own validity window is
 * ignored by the path check, as upstream, and left to the auth policy's `allowExpiredCerts`.
 */
export async function checkCertificateLogin(context: OperationContext): Promise<CertificateCredential> {
  const [leaf, ...intermediates] = clientCertificatesOf(context.request);
  if (!leaf) throw invalidAuth();
  const { deps } = context;
  const now = deps.clock();
  const leafPem = derToPem(leaf.raw, 'CERTIFICATE');
  return deps.store.read(async (db) => {
    const anchor = verifyPath(leaf, intermediates, await loginAnchors(db, deps.pki), { now, checkLeafValidity: false, requireClientAuth: false });
    if (!anchor) throw invalidAuth();
    const holder = await findHolder(db, leafPem, anchor.caId);
    if (!holder) throw invalidAuth();
    await requireCertLoginAllowed(db, holder.identityId, leaf, now);
    return { ...holder, leafPem };
  });
}

/** Inside the login transaction: keep a missing PEM, and bind the certificate to the new API session. */
export async function recordCertificateLogin(tx: Db, deps: AppDeps, credential: CertificateCredential, apiSessionId: string): Promise<void> {
  if (credential.storesPem) {
    await tx
      .updateTable('authenticators')
      .set({ cert_pem: credential.leafPem, updated_at: formatTimestamp(deps.clock()) })
      .where('id', '=', credential.authenticatorId)
      .execute();
  }
  await insertApiSessionCertificate(tx, deps, apiSessionId, credential.leafPem);
}
