// Builds and signs one X.509 certificate: serial number, issuer name, key identifiers and signature.
import 'reflect-metadata';
import { randomBytes, type KeyObject } from 'node:crypto';
import {
  AuthorityKeyIdentifierExtension,
  SubjectKeyIdentifierExtension,
  X509Certificate,
  X509CertificateGenerator,
  type Extension,
  type JsonName,
} from '@peculiar/x509';
import { exportPublicKeyDer, toWebSigningKey } from './crypto-keys.js';

export interface IssueCertificateOptions {
  /** Subject distinguished name, e.g. `CN=edge signing CA, O=OpenZiti`, or @peculiar/x509's JSON form. */
  subject: string | JsonName;
  /** The certified key (its public half is used). */
  subjectKey: KeyObject;
  /** The issuing CA's certificate; absent for a self-signed certificate. */
  issuerCertPem?: string;
  /** The issuing CA's private key; for a self-signed certificate, the subject's own private key. */
  issuerKey: KeyObject;
  notBefore: Date;
  notAfter: Date;
  /** Profile extensions (basic constraints, key usage, EKU, SANs); key identifiers are added here. */
  extensions: Extension[];
  /** Adds a SubjectKeyIdentifier, which Go adds for CA certificates only. */
  hasSubjectKeyId?: boolean;
}

/** Signs a certificate and returns it as PEM. */
export async function issueCertificate(options: IssueCertificateOptions): Promise<string> {
  const subjectPublicKey = new Uint8Array(exportPublicKeyDer(options.subjectKey));
  const issuer = options.issuerCertPem === undefined ? undefined : new X509Certificate(options.issuerCertPem);
  const extensions = [...options.extensions];
  if (options.hasSubjectKeyId) extensions.push(await SubjectKeyIdentifierExtension.create(subjectPublicKey));
  const authorityKeyId = issuer?.getExtension(SubjectKeyIdentifierExtension)?.keyId;
  // Go sets AuthorityKeyIdentifier from the parent's SKI and leaves it out of self-signed certificates.
  if (authorityKeyId !== undefined) extensions.push(new AuthorityKeyIdentifierExtension(authorityKeyId));
  const signingKey = await toWebSigningKey(options.issuerKey);
  const certificate = await X509CertificateGenerator.create({
    serialNumber: randomSerialNumber(),
    subject: options.subject,
    issuer: issuer?.subjectName ?? options.subject,
    notBefore: options.notBefore,
    notAfter: options.notAfter,
    publicKey: subjectPublicKey,
    signingKey: signingKey.cryptoKey,
    signingAlgorithm: signingKey.algorithm,
    extensions,
  });
  return certificate.toString('pem') + '\n';
}

/**
 * A 16-byte positive serial number as hex. Upstream uses 19 random bits (collisions likely); RFC 5280 §4.1.2.2 and
 * the CA/B baseline ask for at least 64 random bits. The top byte is kept in 0x40–0x7f so the integer is positive
 * and its DER encoding is exactly 16 bytes (Go rejects negative and non-minimally encoded serials).
 */
export function randomSerialNumber(): string {
  const bytes = randomBytes(16);
  bytes.writeUInt8((bytes.readUInt8(0) & 0x3f) | 0x40, 0);
  return bytes.toString('hex');
}
