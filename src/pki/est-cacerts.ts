// The body of `GET /.well-known/est/cacerts`: the CA bundle as base64 of a certs-only PKCS#7 (EST, RFC 7030 §4.1.3).
import { pemToDer, wrapBase64 } from './pem.js';

const oidSignedData = Buffer.from('06092a864886f70d010702', 'hex'); // 1.2.840.113549.1.7.2
const oidData = Buffer.from('06092a864886f70d010701', 'hex'); // 1.2.840.113549.1.7.1

/**
 * Base64 (standard alphabet, padded) of a DER "degenerate" PKCS#7 SignedData carrying only `certPems`, in
 * 64-character lines joined by `\n` and ending with `\n`. Serve it as `application/pkcs7-mime`.
 *
 * The trailing newline is a deliberate deviation: upstream sends none, and the C SDK crashed on a single
 * unterminated line. The structure is encoded by hand to match upstream byte for byte (ziti builds it with
 * `pkcs7.DegenerateCertificate`): `@peculiar/x509`'s `X509Certificates.export()` would add an empty `eContent`
 * OCTET STRING where upstream leaves the content absent.
 */
export function formatEstCaCerts(certPems: string[]): string {
  return wrapBase64(encodeDegeneratePkcs7(certPems.map((pem) => pemToDer(pem))).toString('base64'));
}

/**
 * ContentInfo(signedData) with version 1, no digest algorithms, `data` content type without content, the given
 * certificates ([0] IMPLICIT SET OF Certificate) and no signer infos (RFC 2315 §9.1, RFC 5652 §5.1). Certificates
 * keep the caller's order, as upstream: strict DER would sort the SET OF, but no PKCS#7 parser requires it.
 */
export function encodeDegeneratePkcs7(certificatesDer: Uint8Array[]): Buffer {
  const signedData = tlv(0x30, [
    tlv(0x02, [Buffer.from([1])]),
    tlv(0x31, []),
    tlv(0x30, [oidData]),
    tlv(0xa0, certificatesDer),
    tlv(0x31, []),
  ]);
  return tlv(0x30, [oidSignedData, tlv(0xa0, [signedData])]);
}

/** One DER element: tag, definite length (short or long form, X.690 §8.1.3), contents. */
function tlv(tag: number, contents: Uint8Array[]): Buffer {
  const body = Buffer.concat(contents);
  if (body.length < 0x80) return Buffer.concat([Buffer.from([tag, body.length]), body]);
  const lengthBytes: number[] = [];
  for (let rest = body.length; rest > 0; rest = Math.floor(rest / 256)) lengthBytes.unshift(rest % 256);
  return Buffer.concat([Buffer.from([tag, 0x80 | lengthBytes.length, ...lengthBytes]), body]);
}
