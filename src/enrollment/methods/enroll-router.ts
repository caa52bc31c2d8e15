// erott / trott: a router trades its one-time token and two CSRs for its client and server certificates (§3.7).
import type { AppDeps } from '../../app-deps.js';
import { ApiError } from '../../errors/api-error.js';
import { envelope } from '../../http/envelope.js';
import { formatTimestamp } from '../../lib/clock.js';
import { lifetimes, parseCsr, signCsr, type IssuedCertificate } from '../../pki/sign-csr.js';
import type { Db } from '../../store/store.js';
import type { EnrollMethod } from '../enroll.operations.js';
import { consumeEnrollment } from '../enrollment-record.js';

/** The JSON body a ziti router posts (`router/enroll/enroll.go` apiPost), not the spec's `erOttEnrollmentRequest`. */
export interface RouterCsrs {
  serverCertCsr: string;
  certCsr: string;
}

export interface RouterCertificates {
  client: IssuedCertificate;
  server: IssuedCertificate;
}

/**
 * Both CSRs, checked in upstream's order (server first, `model/enrollment_mod_erott.go` Process): a missing or
 * empty one is MISSING_OR_INVALID_CSR. A body that is not a JSON object (a PEM sent as text) has neither. Each is
 * then parsed and its signature checked (COULD_NOT_PROCESS_CSR), before anything is looked up or issued.
 */
export async function readRouterCsrs(body: unknown): Promise<RouterCsrs> {
  const fields = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const csrs: Partial<RouterCsrs> = {};
  for (const [field, which] of [['serverCertCsr', 'server'], ['certCsr', 'client']] as const) {
    const value = fields[field];
    if (typeof value !== 'string' || value === '') throw ApiError.withMessage('MISSING_OR_INVALID_CSR', `invalid ${which} CSR`);
    csrs[field] = value;
  }
  for (const csr of [csrs.serverCertCsr, csrs.certCsr]) await parseCsr(csr);
  return csrs as RouterCsrs;
}

/**
 * A router's certificate pair from the edge signing CA: client (clientAuth) and server (serverAuth), each for a
 * year, each with the SANs its CSR asks for. The client certificate must name the router as CN: upstream refuses
 * other names for edge routers and overwrites them for transit routers; we refuse for both, since the ziti
 * router always sends its id (the JWT `sub`) and signCsr cannot rename a subject.
 */
export async function issueRouterCertificates(deps: AppDeps, routerId: string, csrs: RouterCsrs): Promise<RouterCertificates> {
  const common = { now: deps.clock(), lifetimeMs: lifetimes.year, keepAltNames: true };
  const server = await signCsr(deps.pki, csrs.serverCertCsr, { ...common, use: 'server' });
  const client = await signCsr(deps.pki, csrs.certCsr, { ...common, use: 'client', requiredCommonName: routerId });
  return { client, server };
}

/** The router's certificate is now its client leaf: the fingerprint identifies it from here on. */
export async function storeRouterCertificate(tx: Db, deps: AppDeps, routerId: string, client: IssuedCertificate): Promise<void> {
  await tx
    .updateTable('routers')
    .set({ cert_pem: client.certPem, fingerprint: client.fingerprint, is_verified: 1, updated_at: formatTimestamp(deps.clock()) })
    .where('id', '=', routerId)
    .execute();
}

/** erott enrolls edge routers, trott transit routers; a token whose router is of the other kind is not valid. */
async function requireRouter(db: Db, routerId: string | null, method: string): Promise<string> {
  const router = routerId ? await db.selectFrom('routers').select(['id', 'is_edge']).where('id', '=', routerId).executeTakeFirst() : undefined;
  if (!router || Boolean(router.is_edge) !== (method === 'erott')) throw new ApiError('INVALID_ENROLLMENT_TOKEN');
  return String(router.id);
}

/**
 * Expiry was checked by the dispatcher (upstream checks it for routers too). Certificates are signed before the
 * write; the write consumes the token, so of two concurrent uses only one stores its certificate.
 */
export const enrollRouter: EnrollMethod = async ({ deps, body }, enrollment) => {
  const routerId = await deps.store.read((db) => requireRouter(db, enrollment.routerId, enrollment.method));
  const csrs = await readRouterCsrs(body);
  const { client, server } = await issueRouterCertificates(deps, routerId, csrs);
  await deps.store.transaction(async (tx) => {
    await consumeEnrollment(tx, enrollment);
    await storeRouterCertificate(tx, deps, routerId, client);
  });
  // The router refuses a reply in which any of the three is empty (`router/enroll/enroll.go`).
  return { status: 200, json: envelope({ ca: deps.pki.caBundlePem, cert: client.chainPem, serverCert: server.chainPem }) };
};
