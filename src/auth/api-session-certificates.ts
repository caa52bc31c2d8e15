// Certificates bound to an API session (reference §10.2): signed on request for 12 hours, recorded at certificate
// login and after extend-verify; each caller sees and deletes only its own session's.
import { X509Certificate } from 'node:crypto';
import type { AppDeps } from '../app-deps.js';
import { ApiError } from '../errors/api-error.js';
import { formatTimestamp } from '../lib/clock.js';
import { emptyEnvelope, envelope } from '../http/envelope.js';
import type { OperationContext, OperationHandler, OperationTable } from '../http/operation.js';
import { defineEntity, text, timestamp } from '../crud/define-entity.js';
import { list } from '../crud/crud-handlers.js';
import { toApiEntity } from '../crud/entity-mapping.js';
import { insertApiSessionCertificate as storeCertificate } from '../store/queries/api-sessions.js';
import { deleteEntity, findEntity } from '../crud/entity-store.js';
import { columnIs } from '../store/queries/scopes.js';
import type { Db } from '../store/store.js';
import { certificateFingerprint } from '../pki/fingerprint.js';
import { lifetimes, signCsr } from '../pki/sign-csr.js';

const apiSessionCertificate = defineEntity({
  type: 'apiSessionCertificate',
  path: 'current-api-session/certificates',
  table: 'api_session_certificates',
  idKind: 'shortId',
  fields: {
    subject: text(),
    fingerprint: text(),
    // Upstream's symbols (asked of v1.1.8): the owning session as `apiSession`, no validity dates.
    validFrom: timestamp({ filter: false }),
    validTo: timestamp({ filter: false }),
    certificate: text({ column: 'cert_pem', filter: false }),
    apiSessionId: text({ filter: 'apiSession', output: false }),
  },
});

/** Go's `pkix.Name.String()`: the RDNs in reverse order, comma-separated (`CN=x,O=y,C=US`). */
function goSubjectString(certificate: X509Certificate): string {
  return certificate.subject.split('\n').reverse().join(',');
}

/** Records a certificate as usable by one API session (what edge routers accept for it, while valid). */
export async function insertApiSessionCertificate(tx: Db, deps: AppDeps, apiSessionId: string, certPem: string): Promise<string> {
  const certificate = new X509Certificate(certPem);
  const id = deps.ids.shortId();
  await storeCertificate(
    tx,
    {
      id,
      apiSessionId,
      subject: goSubjectString(certificate),
      fingerprint: certificateFingerprint(certPem),
      validFrom: formatTimestamp(new Date(Date.parse(certificate.validFrom))),
      validTo: formatTimestamp(new Date(Date.parse(certificate.validTo))),
      certPem,
    },
    formatTimestamp(deps.clock()),
  );
  return id;
}

const sessionOf = (context: OperationContext) => context.caller.session!.apiSessionId;

/** The caller's own session's certificate; any other id is simply not found (upstream lists every session's). */
async function requireOwn(db: Db, context: OperationContext) {
  const id = context.params.id as string;
  const found = await findEntity(db, apiSessionCertificate, id);
  if (!found || found.apiSessionId !== sessionOf(context)) throw ApiError.notFound('apiSessionCertificate', id);
  return found;
}

const detailCurrentApiSessionCertificate: OperationHandler = {
  access: 'authenticated',
  async handle(context) {
    const { deps, caller } = context;
    const data = await deps.store.read(async (db) => toApiEntity(apiSessionCertificate, await requireOwn(db, context), { db, deps, caller }));
    return { status: 200, json: envelope(data) };
  },
};

const deleteCurrentApiSessionCertificate: OperationHandler = {
  access: 'authenticated',
  async handle(context) {
    await context.deps.store.transaction(async (tx) => {
      const own = await requireOwn(tx, context);
      await deleteEntity(tx, apiSessionCertificate, own.id);
    });
    return { status: 200, json: emptyEnvelope() };
  },
};

/** A 12-hour client certificate from the caller's CSR, starting now (no backdating, as upstream). */
const createCurrentApiSessionCertificate: OperationHandler = {
  access: 'authenticated',
  async handle(context) {
    const { deps } = context;
    const csr = (context.body as { csr: string }).csr;
    const issued = await signCsr(deps.pki, csr, { use: 'client', now: deps.clock(), lifetimeMs: lifetimes.apiSession, keepAltNames: false, backdate: false });
    const id = await deps.store.transaction((tx) => insertApiSessionCertificate(tx, deps, sessionOf(context), issued.certPem));
    const data = { _links: { self: { href: `./${apiSessionCertificate.path}/${id}` } }, id, certificate: issued.certPem, cas: deps.pki.caBundlePem };
    return { status: 201, json: envelope(data) };
  },
};

export const apiSessionCertificateOperations: OperationTable = {
  listCurrentApiSessionCertificates: list(apiSessionCertificate, 'authenticated', {
    scope: (context) => Promise.resolve(columnIs('api_session_id', sessionOf(context))),
  }),
  createCurrentApiSessionCertificate,
  detailCurrentApiSessionCertificate,
  deleteCurrentApiSessionCertificate,
};
