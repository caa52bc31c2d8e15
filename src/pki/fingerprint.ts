// Certificate fingerprints in ziti's format: lowercase hex SHA-1 of the DER, no separators.
import { createHash, X509Certificate } from 'node:crypto';

/**
 * Lowercase hex SHA-1 of the certificate's DER (40 chars), the one format ziti stores and compares (authenticators,
 * CAs, routers, the enrollment JWT `kid`). Node's own `X509Certificate.fingerprint` is uppercase with colons, so
 * the DER is hashed here. Accepts a PEM string (the first certificate is used), DER bytes or a parsed certificate.
 */
export function certificateFingerprint(certificate: string | Uint8Array | X509Certificate): string {
  const raw =
    certificate instanceof X509Certificate
      ? certificate.raw
      : new X509Certificate(typeof certificate === 'string' ? certificate : Buffer.from(certificate)).raw;
  return createHash('sha1').update(raw).digest('hex');
}
