// erott / trott: a router trades its one-time token and two CSRs for its client and server certificates
// (docs/reference/pki-enrollment-auth.md §3.7).
import { ApiError } from '../../errors/api-error.js';
import { envelope } from '../../http/envelope.js';
import { formatTimestamp, type Clock } from '../../lib/clock.js';
import type { Pki } from '../../pki/ensure-pki.js';
import { lifetimes, parseCsr, signCsr, type IssuedCertificate } from '../../pki/sign-csr.js';
import { routerIsEdge, setRouterCertificate } from '../../store/queries/routers.js';
import type { Db } from '../../store/store.js';
import type { EnrollMethod } from './enroll-method.js';
import { consumeEnrollment } from '../enrollment-record.js';
import { isJsonObject } from '../../lib/object-path.js';
import { recordedWrite, type RecordOptions } from '../../crud/recorded-write.js';
import { edgeRouter } from '../../entities/edge-router/edge-router.definition.js';

/** The JSON body a ziti router posts (`router/enroll/enroll.go` apiPost), not the spec's `erOttEnrollmentRequest`. */
export interface RouterCsrs {
  serverCertCsr: string;
  certCsr: string;
}

export interface RouterCertificates {
  client: IssuedCertificate;
  server: IssuedCertificate;
}

/** The two CSR fields, in the order upstream checks them (`model/enrollment_mod_erott.go` Process). */
const CSR_FIELDS = [
  ['serverCertCsr', 'server'],
  ['certCsr', 'client'],
] as const;

/**
 * erott / trott: both fields must be there, server first (missing, null, or a body that is not a JSON object:
 * MISSING_OR_INVALID_CSR); then each must parse with a good signature, "" included (COULD_NOT_PROCESS_CSR), with
 * upstream's causes. Nothing is looked up, issued or consumed before this passes.
 */
export async function readEnrollmentCsrs(body: unknown): Promise<RouterCsrs> {
  const fields = isJsonObject(body) ? body : {};
  for (const [field, which] of CSR_FIELDS) {
    if (typeof fields[field] !== 'string') throw ApiError.withMessage('MISSING_OR_INVALID_CSR', `invalid ${which} CSR`);
  }
  for (const [field, which] of CSR_FIELDS) {
    await parseCsr(fields[field]).catch(() => {
      throw ApiError.withMessage('COULD_NOT_PROCESS_CSR', `invalid ${which} CSR`);
    });
  }
  const { serverCertCsr, certCsr } = fields;
  // Checked above, in upstream's order; this only tells the types.
  if (typeof serverCertCsr !== 'string' || typeof certCsr !== 'string')
    throw ApiError.withMessage('MISSING_OR_INVALID_CSR', 'invalid CSR');
  return { serverCertCsr, certCsr };
}

/**
 * `/enroll/extend/router`, whose body the contract has already made two strings: client first, as upstream's
 * `EdgeRouterManager.ExtendEnrollment`; an empty one is COULD_NOT_PROCESS_CSR with upstream's cause.
 */
export async function readExtensionCsrs(body: RouterCsrs): Promise<RouterCsrs> {
  for (const [field, which] of [...CSR_FIELDS].reverse()) {
    if (body[field] === '') throw ApiError.withMessage('COULD_NOT_PROCESS_CSR', `empty ${which} cert csr`);
    await parseCsr(body[field]);
  }
  return body;
}

/**
 * A router's certificate pair from the edge signing CA: client (clientAuth) and server (serverAuth), each for a
 * year, each with the SANs its CSR asks for. The client certificate must name the router as CN: upstream refuses
 * other names for edge routers and overwrites them for transit routers; we refuse for both, since the ziti
 * router always sends its id (the JWT `sub`) and signCsr cannot rename a subject.
 */
export async function issueRouterCertificates(
  deps: { clock: Clock; pki: Pki },
  routerId: string,
  csrs: RouterCsrs,
): Promise<RouterCertificates> {
  const common = { now: deps.clock(), lifetimeMs: lifetimes.year, keepAltNames: true };
  const server = await signCsr(deps.pki, csrs.serverCertCsr, { ...common, use: 'server' });
  const client = await signCsr(deps.pki, csrs.certCsr, { ...common, use: 'client', requiredCommonName: routerId });
  return { client, server };
}

/** The router's certificate is now its client leaf: the fingerprint identifies it from here on. */
export async function storeRouterCertificate(
  tx: Db,
  deps: { clock: Clock },
  routerId: string,
  client: IssuedCertificate,
  options?: RecordOptions,
): Promise<void> {
  await recordedRouterWrite(
    tx,
    routerId,
    () => setRouterCertificate(tx, routerId, client, formatTimestamp(deps.clock())),
    options,
  );
}

/**
 * A write of a router's certificates, recorded as an update of the router (upstream's router store emits it; the
 * edge router's fields are a transit router's and its certificate besides).
 */
export function recordedRouterWrite<T>(
  tx: Db,
  routerId: string,
  write: () => Promise<T>,
  options?: RecordOptions,
): Promise<T> {
  return recordedWrite(tx, edgeRouter, routerId, write, options);
}

/** erott enrolls edge routers, trott transit routers; a token whose router is of the other kind is not valid. */
async function requireRouter(db: Db, routerId: string | null, method: string): Promise<string> {
  if (!routerId) throw new ApiError('INVALID_ENROLLMENT_TOKEN');
  const isEdge = await routerIsEdge(db, routerId);
  if (isEdge === undefined || isEdge !== (method === 'erott')) throw new ApiError('INVALID_ENROLLMENT_TOKEN');
  return routerId;
}

/**
 * Expiry was checked by the dispatcher (upstream checks it for routers too). Certificates are signed before the
 * write; the write consumes the token, so of two concurrent uses only one stores its certificate.
 */
export const enrollRouter: EnrollMethod = async ({ deps, body }, enrollment) => {
  const routerId = await deps.store.read((db) => requireRouter(db, enrollment.routerId, enrollment.method));
  const csrs = await readEnrollmentCsrs(body);
  const { client, server } = await issueRouterCertificates(deps, routerId, csrs);
  await deps.store.transaction(async (tx) => {
    // In upstream's order: the router's update is recorded before the enrollment's deletion.
    await storeRouterCertificate(tx, deps, routerId, client);
    await consumeEnrollment(tx, enrollment);
  });
  // The router refuses a reply in which any of the three is empty (`router/enroll/enroll.go`).
  return {
    status: 200,
    json: envelope({ ca: deps.pki.caBundlePem, cert: client.chainPem, serverCert: server.chainPem }),
  };
};

/** upstream's newRouterChangeContext (handler_edge_ctrl/extend_enrollment.go): the router, over its channel. */
export function routerRenewalChange(routerId: string): RecordOptions {
  return {
    context: {
      author: { type: 'router', id: routerId },
      source: { type: 'ctrl.channel', method: 'extend.router.enrollment' },
    },
    throughRouter: routerId,
  };
}
