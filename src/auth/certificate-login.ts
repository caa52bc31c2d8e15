// `POST /authenticate?method=cert` (docs/reference/pki-enrollment-auth.md §4.3): the TLS client certificate must chain
// to the controller's CAs or a verified third-party CA with auth enabled, and name an identity by fingerprint or by
// external id.
import type { X509Certificate } from 'node:crypto';
import { currentChangeContext } from '../lib/change-context.js';
import { formatTimestamp } from '../lib/clock.js';
import type { OperationContext } from '../http/operation.js';
import { clientCertificatesOf } from '../http/client-certificates.js';
import { certAuthenticatorWithFingerprint, storeAuthenticatorCertificate } from '../store/queries/authenticators.js';
import { caExternalIdClaim } from '../store/queries/cas.js';
import { identityIdBy } from '../store/queries/identities.js';
import type { Db } from '../store/store.js';
import { certificateFingerprint } from '../pki/fingerprint.js';
import { derToPem } from '../pki/pem.js';
import { insertApiSessionCertificate } from './api-session-certificates.js';
import { externalIdOf, normaliseExternalIdClaim } from './external-id-claim.js';
import { invalidAuth, type PrimaryCredential } from './login-policy.js';
import { isValidAt, loginAnchors, verifyPath } from './trust.js';
import { parseJsonValue } from '../lib/json-value.js';

interface Holder {
  identityId: string;
  authenticatorId: string;
  /** The authenticator had no certificate stored yet (created with a fingerprint only); it gets this one. */
  storesPem: boolean;
}

/** The identity a trusted certificate names: by the CA's external-id claim when it yields one, else by fingerprint. */
async function findHolder(db: Db, leaf: X509Certificate, caId: string | undefined): Promise<Holder | undefined> {
  if (caId !== undefined) {
    const stored = await caExternalIdClaim(db, caId);
    const claim = stored ? (normaliseExternalIdClaim(parseJsonValue(stored)) ?? undefined) : undefined;
    const externalId = claim ? externalIdOf(leaf.raw, claim) : undefined;
    if (externalId !== undefined) {
      const identityId = await identityIdBy(db, 'externalId', externalId);
      return identityId === undefined ? undefined : { identityId, authenticatorId: 'internal', storesPem: false };
    }
  }
  // cert_fingerprint is UNIQUE, so this is one index probe.
  const authenticator = await certAuthenticatorWithFingerprint(db, certificateFingerprint(leaf));
  return (
    authenticator && {
      identityId: authenticator.identityId,
      authenticatorId: authenticator.id,
      storesPem: !authenticator.hasCertPem,
    }
  );
}

/**
 * Checks the presented chain (leaf first, the rest untrusted intermediates). The leaf's own validity window is
 * ignored by the path check, as upstream, and left to the auth policy's `allowExpiredCerts`.
 */
export async function checkCertificateLogin(context: OperationContext): Promise<PrimaryCredential> {
  const [leaf, ...intermediates] = clientCertificatesOf(context.request);
  if (!leaf) throw invalidAuth();
  const { deps } = context;
  const leafPem = derToPem(leaf.raw, 'CERTIFICATE');
  const anchor = verifyPath(leaf, intermediates, await loginAnchors(deps.store, deps.pki), {
    now: deps.clock(),
    checkLeafValidity: false,
    requireClientAuth: false,
  });
  const holder = anchor && (await deps.store.read((db) => findHolder(db, leaf, anchor.caId)));
  if (!holder) throw invalidAuth();
  return {
    identityId: holder.identityId,
    authenticatorId: holder.authenticatorId,
    satisfies: (policy, now) => policy.allowExpiredCerts || isValidAt(leaf, now),
    // Keep a missing PEM, and bind the certificate to the new API session.
    async record(tx, apiSessionId) {
      if (holder.storesPem) {
        await storeAuthenticatorCertificate(tx, holder.authenticatorId, leafPem, formatTimestamp(deps.clock()));
      }
      await insertApiSessionCertificate(tx, deps, apiSessionId, leafPem, {
        context: { ...currentChangeContext(), author: { type: 'identity', id: holder.identityId } },
        parsed: leaf,
      });
    },
  };
}
