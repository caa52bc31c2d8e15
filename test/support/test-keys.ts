// Keys and CSRs made the way clients make them: EC P-256 (the C SDK via tlsuv, ziti routers) or RSA 2048 (the Go
// SDK and CLI family), through WebCrypto as @peculiar/x509 wants.
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import {
  Pkcs10CertificateRequestGenerator,
  SubjectAlternativeNameExtension,
  type JsonGeneralName,
} from '@peculiar/x509';
import { derToPem } from '../../src/pki/pem.js';

export type KeyKind = 'ec' | 'rsa';

export const EC_ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
export const RSA_ALGORITHM = {
  name: 'RSASSA-PKCS1-v1_5',
  modulusLength: 2048,
  publicExponent: new Uint8Array([1, 0, 1]),
  hash: 'SHA-256',
} as const;

export interface KeyPair {
  keys: webcrypto.CryptoKeyPair;
  algorithm: webcrypto.EcdsaParams | webcrypto.RsaHashedImportParams;
  /** PKCS#8 PEM of the private key, for TLS client options. */
  keyPem: string;
  spkiDer: Buffer;
}

/** `modulusLength` for RSA only: 4096 makes the largest CSRs clients send. */
export async function newKeyPair(kind: KeyKind, modulusLength = 2048): Promise<KeyPair> {
  const algorithm = kind === 'ec' ? EC_ALGORITHM : { ...RSA_ALGORITHM, modulusLength };
  const keys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const keyPem = derToPem(new Uint8Array(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)), 'PRIVATE KEY');
  const spkiDer = Buffer.from(await webcrypto.subtle.exportKey('spki', keys.publicKey));
  return { keys, algorithm, keyPem, spkiDer };
}

/** A PEM CSR for `subject` (e.g. `C=US, O=OpenZiti, CN=<id>`), with SANs when given. */
export async function newCsr(key: KeyPair, subject: string, altNames: JsonGeneralName[] = []): Promise<string> {
  const csr = await Pkcs10CertificateRequestGenerator.create({
    name: subject,
    keys: key.keys,
    signingAlgorithm: key.algorithm,
    extensions: altNames.length > 0 ? [new SubjectAlternativeNameExtension(altNames)] : [],
  });
  return `${csr.toString('pem')}\n`;
}
