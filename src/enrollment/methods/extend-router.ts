// `POST /enroll/extend/router`: an enrolled router renews its certificates, identified by the one it presents (§3.8).
import type { X509Certificate } from 'node:crypto';
import { ApiError } from '../../errors/api-error.js';
import { clientCertificatesOf } from '../../http/client-certificates.js';
import { envelope } from '../../http/envelope.js';
import type { OperationHandler } from '../../http/operation.js';
import { certificateFingerprint } from '../../pki/fingerprint.js';
import type { Db } from '../../store/store.js';
import { issueRouterCertificates, readRouterCsrs, storeRouterCertificate } from './enroll-router.js';

/**
 * The router behind the TLS client certificate: upstream fingerprints the last non-CA certificate of the presented
 * chain and looks it up among edge routers, then transit routers (one table here). No certificate, only CA
 * certificates, or an unknown fingerprint → 401 UNAUTHORIZED.
 */
async function routerPresenting(db: Db, presented: readonly X509Certificate[]): Promise<{ id: string; fingerprint: string }> {
  const leaf = presented.filter((certificate) => !certificate.ca).at(-1);
  const fingerprint = leaf ? certificateFingerprint(leaf.raw) : undefined;
  const router = fingerprint ? await db.selectFrom('routers').select('id').where('fingerprint', '=', fingerprint).executeTakeFirst() : undefined;
  if (!router || !fingerprint) throw new ApiError('UNAUTHORIZED');
  return { id: String(router.id), fingerprint };
}

/**
 * The CSRs are checked before the caller is identified, as every operation validates its body before its access
 * check (design part 0); nothing is issued until the router is known. The new certificate replaces the old one at
 * once: upstream's REST extension has no verify step. The reply has no `ca`, and its `serverCert` is the leaf
 * alone, not a chain, as upstream's `EnrollRouter.extendRouterEnrollment` answers.
 */
export const extendRouterEnrollment: OperationHandler = {
  access: 'public',
  async handle({ deps, body, request }) {
    const csrs = await readRouterCsrs(body);
    const presented = clientCertificatesOf(request);
    const router = await deps.store.read((db) => routerPresenting(db, presented));
    const { client, server } = await issueRouterCertificates(deps, router.id, csrs);
    await deps.store.transaction(async (tx) => {
      // A concurrent renewal or re-enroll already replaced the certificate this request was made with.
      const current = await tx.selectFrom('routers').select('id').where('id', '=', router.id).where('fingerprint', '=', router.fingerprint).executeTakeFirst();
      if (!current) throw new ApiError('UNAUTHORIZED');
      await storeRouterCertificate(tx, deps, router.id, client);
    });
    return { status: 200, json: envelope({ cert: client.chainPem, serverCert: server.certPem }) };
  },
};
