// `/.well-known/est/cacerts`: the trust bundle as base64 PKCS#7 (RFC 7030 §4.1.3), at the root and per API.
import type { OperationHandler, OperationResult } from '../http/operation.js';
import type { Pki } from '../pki/ensure-pki.js';
import { formatEstCaCerts } from '../pki/est-cacerts.js';
import { splitPemCertificates } from '../pki/pem.js';

const cache = new WeakMap<Pki, string>();

export function caCertsResult(deps: { pki: Pki }): OperationResult {
  let body = cache.get(deps.pki);
  if (body === undefined) {
    body = formatEstCaCerts(splitPemCertificates(deps.pki.caBundlePem));
    cache.set(deps.pki, body);
  }
  return {
    status: 200,
    raw: body,
    contentType: 'application/pkcs7-mime',
    headers: { 'content-transfer-encoding': 'base64' },
  };
}

export const listWellKnownCas: OperationHandler = {
  access: 'public',
  handle: ({ deps }) => Promise.resolve(caCertsResult(deps)),
};
