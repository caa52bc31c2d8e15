// `POST /enroll/extend/router`: an enrolled router renews its certificates, identified by the one it presents
// (docs/reference/pki-enrollment-auth.md §3.8).
import type { X509Certificate } from 'node:crypto';
import { ApiError } from '../../errors/api-error.js';
import { clientCertificatesOf } from '../../http/client-certificates.js';
import { envelope } from '../../http/envelope.js';
import type { OperationHandler } from '../../http/operation.js';
import { certificateFingerprint } from '../../pki/fingerprint.js';
import { routerWithFingerprint } from '../../store/queries/routers.js';
import type { Db } from '../../store/store.js';
import { issueRouterCertificates, readExtensionCsrs, storeRouterCertificate } from './enroll-router.js';

/**
 * The router behind the TLS client certificate: upstream fingerprints the last non-CA certificate of the presented
 * chain and looks it up among edge routers, then transit routers (one table here). No certificate, only CA
 * certificates, or an unknown fingerprint → 401 UNAUTHORIZED.
 */
async function routerPresenting(
  db: Db,
  presented: readonly X509Certificate[],
): Promise<{ id: string; fingerprint: string }> {
  const leaf = presented.filter((certificate) => !certificate.ca).at(-1);
  const fingerprint = leaf ? certificateFingerprint(leaf.raw) : undefined;
  const routerId = fingerprint ? await routerWithFingerprint(db, fingerprint) : undefined;
  if (!routerId || !fingerprint) throw new ApiError('UNAUTHORIZED');
  return { id: routerId, fingerprint };
}

/**
 * The contract checks the body's shape first (both fields, strings); then, as upstream's
 * `EnrollRouter.extendRouterEnrollment`, the caller must be a router (401) before its CSRs are read. The new
 * certificate replaces the old one at once: upstream's REST extension has no verify step. The reply has no `ca`,
 * and its `serverCert` is the leaf alone, not a chain.
 */
export const extendRouterEnrollment: OperationHandler<'extendRouterEnrollment', 'client'> = {
  access: 'public',
  async handle({ deps, body, request }) {
    const router = await deps.store.read((db) => routerPresenting(db, clientCertificatesOf(request)));
    const csrs = await readExtensionCsrs(body);
    const { client, server } = await issueRouterCertificates(deps, router.id, csrs);
    await deps.store.transaction(async (tx) => {
      // A concurrent renewal or re-enroll already replaced the certificate this request was made with.
      if ((await routerWithFingerprint(tx, router.fingerprint)) !== router.id) throw new ApiError('UNAUTHORIZED');
      await storeRouterCertificate(tx, deps, router.id, client);
    });
    return { status: 200, json: envelope({ cert: client.chainPem, serverCert: server.certPem }) };
  },
};
