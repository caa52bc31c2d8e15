// Certificate fingerprints in ziti's format: lowercase hex SHA-1 of the DER, no separators.
import { createHash, X509Certificate } from 'node:crypto';

/**
 * Lowercase hex SHA-1 of the certificate's DER (40 chars), the one format ziti stores and compares (authenticators,
 * CAs, routers, the enrollment JWT `kid`). Node's own `X509Certificate.fingerprint` is uppercase with colons, so
 * the DER is hashed here. Accepts a PEM string (the first certificate is used) or DER bytes.
 */
export function certificateFingerprint(pemOrDer: string | Uint8Array): string {
  const raw = new X509Certificate(typeof pemOrDer === 'string' ? pemOrDer : Buffer.from(pemOrDer)).raw;
  return createHash('sha1').update(raw).digest('hex');
}
