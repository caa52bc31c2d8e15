// Certificates bound to an API session (docs/reference/pki-enrollment-auth.md §10.2): signed on request for 12 hours,
// recorded at certificate login and after extend-verify; each caller sees and deletes only its own session's.
import { X509Certificate } from 'node:crypto';
import { formatTimestamp, type Clock } from '../lib/clock.js';
import type { IdGenerators } from '../lib/ids.js';
import { envelope } from '../http/envelope.js';
import type { OperationHandler, OperationShape, OperationTable } from '../http/operation.js';
import type { SessionCaller } from '../http/request-context.js';
import { detail, fieldIs, list, remove, type FindOptions } from '../crud/crud-handlers.js';
import { insertApiSessionCertificate as storeCertificate } from '../store/queries/api-sessions.js';
import type { Db } from '../store/store.js';
import { certificateFingerprint } from '../pki/fingerprint.js';
import { lifetimes, signCsr } from '../pki/sign-csr.js';
import { apiSessionCertificate } from './api-session-certificate.definition.js';
import { recordedInsert } from '../crud/recorded-write.js';
import type { ChangeContext } from '../lib/change-context.js';

/** Go's `pkix.Name.String()`: the RDNs in reverse order, comma-separated (`CN=x,O=y,C=US`). */
function goSubjectString(certificate: X509Certificate): string {
  return certificate.subject.split('\n').reverse().join(',');
}

/**
 * Records a certificate as usable by one API session (what edge routers accept for it, while valid). `context` names
 * the author where the request's caller is not it (a login: the identity logging in); `parsed` is the same certificate
 * already parsed (a cert login's presented leaf), so it is not parsed again.
 */
export async function insertApiSessionCertificate(
  tx: Db,
  deps: { clock: Clock; ids: IdGenerators },
  apiSessionId: string,
  certPem: string,
  options: { context?: ChangeContext; parsed?: X509Certificate } = {},
): Promise<string> {
  const certificate = options.parsed ?? new X509Certificate(certPem);
  const id = deps.ids.shortId();
  const store = () =>
    storeCertificate(
      tx,
      {
        id,
        apiSessionId,
        subject: goSubjectString(certificate),
        fingerprint: certificateFingerprint(certificate),
        validFrom: formatTimestamp(new Date(Date.parse(certificate.validFrom))),
        validTo: formatTimestamp(new Date(Date.parse(certificate.validTo))),
        certPem,
      },
      formatTimestamp(deps.clock()),
    );
  // upstream's apiSessionCertificate store emits its creates (one at every certificate login).
  await recordedInsert(tx, apiSessionCertificate, store, options.context ? { context: options.context } : {});
  return id;
}

/** The caller's own session's certificates; any other id is simply not found (upstream lists every session's). */
const own: FindOptions<OperationShape, SessionCaller> = {
  scope: ({ caller }) => Promise.resolve(fieldIs(apiSessionCertificate, 'apiSessionId', caller.session.apiSessionId)),
};

/** A 12-hour client certificate from the caller's CSR, starting now (no backdating, as upstream). */
const createCurrentApiSessionCertificate: OperationHandler<'createCurrentApiSessionCertificate', 'client'> = {
  access: 'authenticated',
  async handle({ deps, body, caller }) {
    const issued = await signCsr(deps.pki, body.csr, {
      use: 'client',
      now: deps.clock(),
      lifetimeMs: lifetimes.apiSession,
      keepAltNames: false,
      backdate: false,
    });
    const id = await deps.store.transaction((tx) =>
      insertApiSessionCertificate(tx, deps, caller.session.apiSessionId, issued.certPem),
    );
    const data = {
      _links: { self: { href: `./${apiSessionCertificate.path}/${id}` } },
      id,
      certificate: issued.certPem,
      cas: deps.pki.caBundlePem,
    };
    return { status: 201, json: envelope(data) };
  },
};

export const apiSessionCertificateOperations: OperationTable<'client'> = {
  listCurrentApiSessionCertificates: list(apiSessionCertificate, 'authenticated', own),
  createCurrentApiSessionCertificate,
  detailCurrentApiSessionCertificate: detail(apiSessionCertificate, 'authenticated', own),
  deleteCurrentApiSessionCertificate: remove(apiSessionCertificate, 'authenticated', own),
};
