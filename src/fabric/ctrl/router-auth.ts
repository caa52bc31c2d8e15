// Which router a control connection is, decided as upstream's controller/handler_ctrl/connect.go does: the presented
// leaf certificates that chain to our edge signing CA give their SHA-1 fingerprints; the router named by the hello
// (its id, also the certificate's CN) must exist, have finished enrollment, hold one of those fingerprints, and not
// be disabled.
import type { X509Certificate } from 'node:crypto';
import { anchorsFromPem, verifyPath, type TrustAnchor } from '../../auth/trust.js';
import { certificateFingerprint } from '../../pki/fingerprint.js';
import type { Pki } from '../../pki/ensure-pki.js';
import { routersForConnection, type RouterForConnection } from '../../store/queries/router-presence.js';
import type { Store } from '../../store/store.js';

/** A connection refused; the reason is logged here and never sent to the peer (upstream closes without a word). */
export class RouterRefused extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'RouterRefused';
  }
}

/** The signing CA as a trust anchor, parsed once per PKI. */
const signingAnchors = new WeakMap<Pki, TrustAnchor[]>();

/** SHA-1 fingerprints of the presented leaves that chain to the signing CA (any key usage, as upstream). */
export function validFingerprints(certificates: readonly X509Certificate[], pki: Pki, now: Date): string[] {
  let anchors = signingAnchors.get(pki);
  if (!anchors) signingAnchors.set(pki, (anchors = anchorsFromPem(pki.signingCertPem)));
  const intermediates = certificates.filter((certificate) => certificate.ca);
  return certificates
    .filter((certificate) => !certificate.ca)
    .filter(
      (leaf) =>
        verifyPath(leaf, intermediates, anchors, { now, checkLeafValidity: true, requireClientAuth: false }) !==
        undefined,
    )
    .map((leaf) => certificateFingerprint(leaf.raw));
}

export async function authenticateRouter(
  store: Store,
  pki: Pki,
  routerId: string,
  certificates: readonly X509Certificate[],
  now: Date,
): Promise<RouterForConnection> {
  if (certificates.length === 0) throw new RouterRefused('no client certificate');
  const fingerprints = validFingerprints(certificates, pki, now);
  if (fingerprints.length === 0)
    throw new RouterRefused('client certificate does not chain to the edge signing CA (or is not valid now)');
  const [router] = await store.read((db) => routersForConnection(db, [routerId]));
  if (!router) throw new RouterRefused('unknown/unenrolled router');
  if (router.fingerprint === null) throw new RouterRefused('router enrollment incomplete');
  if (!fingerprints.includes(router.fingerprint))
    throw new RouterRefused(`incorrect fingerprint: presented ${fingerprints.join(', ')}`);
  if (router.disabled) throw new RouterRefused('router disabled');
  return router;
}
