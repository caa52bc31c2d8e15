// PEM text ↔ DER bytes for certificates and keys, and splitting a PEM bundle into single certificates.

const certificateBlock = /-----BEGIN CERTIFICATE-----\r?\n[A-Za-z0-9+/=\r\n]+?-----END CERTIFICATE-----/g;

/** Every CERTIFICATE block of a PEM bundle, in order, each normalised to end with `\n`. Other block types are skipped. */
export function splitPemCertificates(bundle: string): string[] {
  return [...bundle.matchAll(certificateBlock)].map((match) => derToPem(pemToDer(match[0]), 'CERTIFICATE'));
}

/** The DER bytes of the first PEM block in `pem`. */
export function pemToDer(pem: string): Buffer {
  const match = /-----BEGIN ([A-Z0-9 ]+)-----([A-Za-z0-9+/=\s]+?)-----END \1-----/.exec(pem);
  if (!match?.[2]) throw new Error('no PEM block found');
  return Buffer.from(match[2].replace(/\s+/g, ''), 'base64');
}

/** A PEM block with 64-character base64 lines (RFC 7468 §2) and a trailing newline. */
export function derToPem(der: Uint8Array, label: string): string {
  return `-----BEGIN ${label}-----\n${wrapBase64(Buffer.from(der).toString('base64'))}-----END ${label}-----\n`;
}

/** Splits base64 text into 64-character lines, each ending with `\n` (so the result ends with a newline). */
export function wrapBase64(base64: string): string {
  return base64.replace(/.{1,64}/g, '$&\n');
}
