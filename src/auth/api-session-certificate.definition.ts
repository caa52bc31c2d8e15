// An API session's certificates as the generic entity machinery lists, shows and deletes them.
import { defineEntity, text, timestamp } from '../crud/define-entity.js';

export const apiSessionCertificate = defineEntity({
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
