// Certificates a test makes for itself, as an operator's own PKI would: a self-signed EC CA, leaf certificates it
// issues (EC P-256 or RSA 2048), CSRs; and TLS calls checked against the contract like t.call's.
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { webcrypto } from 'node:crypto';
import {
  BasicConstraintsExtension,
  ExtendedKeyUsage,
  ExtendedKeyUsageExtension,
  KeyUsageFlags,
  KeyUsagesExtension,
  SubjectAlternativeNameExtension,
  SubjectKeyIdentifierExtension,
  AuthorityKeyIdentifierExtension,
  X509CertificateGenerator,
  type Extension,
  type JsonGeneralName,
  type X509Certificate,
} from '@peculiar/x509';
import { validateResponse } from '../../src/http/spec/load-spec.js';
import { operationFor } from './conformance.js';
import type { TlsRequestOptions, TlsResponse, TlsTestApp } from './tls-client.js';
import { newCsr, newKeyPair } from './test-keys.js';

const day = 86_400_000;
const EC = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const RSA = {
  name: 'RSASSA-PKCS1-v1_5',
  modulusLength: 2048,
  publicExponent: new Uint8Array([1, 0, 1]),
  hash: 'SHA-256',
} as const;

export type KeyType = 'ec' | 'rsa';

export interface TestCa {
  certPem: string;
  certificate: X509Certificate;
  keys: webcrypto.CryptoKeyPair;
}

export interface KeyAndCert {
  certPem: string;
  keyPem: string;
}

async function generateKeys(type: KeyType): Promise<webcrypto.CryptoKeyPair> {
  return webcrypto.subtle.generateKey(type === 'ec' ? EC : RSA, true, ['sign', 'verify']);
}

async function privateKeyPem(key: webcrypto.CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key));
  return `-----BEGIN PRIVATE KEY-----\n${der.toString('base64').replace(/.{1,64}/g, '$&\n')}-----END PRIVATE KEY-----\n`;
}

/** A self-signed EC P-256 CA valid from a day before `now` for a year (or the window given). */
export async function createTestCa(
  name: string,
  now: Date,
  window: { notBefore?: Date; notAfter?: Date } = {},
): Promise<TestCa> {
  const keys = await generateKeys('ec');
  const certificate = await X509CertificateGenerator.createSelfSigned({
    name: `CN=${name}, O=Test PKI`,
    keys,
    signingAlgorithm: EC,
    notBefore: window.notBefore ?? new Date(now.getTime() - day),
    notAfter: window.notAfter ?? new Date(now.getTime() + 365 * day),
    extensions: [
      new BasicConstraintsExtension(true, undefined, true),
      new KeyUsagesExtension(KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign, true),
      await SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: `${certificate.toString('pem')}\n`, certificate, keys };
}

/** An intermediate CA the test CA issues (for chains the client presents with its leaf). */
export async function createIntermediateCa(root: TestCa, name: string, now: Date): Promise<TestCa> {
  const keys = await generateKeys('ec');
  const certificate = await X509CertificateGenerator.create({
    subject: `CN=${name}, O=Test PKI`,
    issuer: root.certificate.subject,
    publicKey: keys.publicKey,
    signingKey: root.keys.privateKey,
    signingAlgorithm: EC,
    notBefore: new Date(now.getTime() - day),
    notAfter: new Date(now.getTime() + 365 * day),
    extensions: [
      new BasicConstraintsExtension(true, 0, true),
      new KeyUsagesExtension(KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign, true),
      await SubjectKeyIdentifierExtension.create(keys.publicKey),
      await AuthorityKeyIdentifierExtension.create(root.keys.publicKey),
    ],
  });
  return { certPem: `${certificate.toString('pem')}\n`, certificate, keys };
}

export interface LeafOptions {
  commonName: string;
  now: Date;
  keyType?: KeyType;
  altNames?: JsonGeneralName[];
  notBefore?: Date;
  notAfter?: Date;
  /** Leave out the clientAuth EKU, or make the certificate a CA. */
  usage?: 'client' | 'server' | 'ca';
}

/** A certificate `ca` issues, and its private key (PKCS#8 PEM), ready for a TLS client. */
export async function issueTestCertificate(ca: TestCa, options: LeafOptions): Promise<KeyAndCert> {
  const keys = await generateKeys(options.keyType ?? 'ec');
  const extensions: Extension[] = [await AuthorityKeyIdentifierExtension.create(ca.keys.publicKey)];
  if (options.usage === 'ca') {
    extensions.push(
      new BasicConstraintsExtension(true, undefined, true),
      new KeyUsagesExtension(KeyUsageFlags.keyCertSign, true),
    );
  } else {
    extensions.push(
      new KeyUsagesExtension(KeyUsageFlags.digitalSignature | KeyUsageFlags.keyEncipherment, true),
      new ExtendedKeyUsageExtension([
        options.usage === 'server' ? ExtendedKeyUsage.serverAuth : ExtendedKeyUsage.clientAuth,
      ]),
    );
  }
  if (options.altNames) extensions.push(new SubjectAlternativeNameExtension(options.altNames));
  const certificate = await X509CertificateGenerator.create({
    subject: `CN=${options.commonName}`,
    issuer: ca.certificate.subject,
    publicKey: keys.publicKey,
    signingKey: ca.keys.privateKey,
    signingAlgorithm: EC,
    notBefore: options.notBefore ?? new Date(options.now.getTime() - day),
    notAfter: options.notAfter ?? new Date(options.now.getTime() + 90 * day),
    extensions,
  });
  return { certPem: `${certificate.toString('pem')}\n`, keyPem: await privateKeyPem(keys.privateKey) };
}

export interface CsrAndKey {
  csrPem: string;
  keyPem: string;
}

export async function createCsr(
  commonName: string,
  keyType: KeyType = 'ec',
  altNames?: JsonGeneralName[],
): Promise<CsrAndKey> {
  const key = await newKeyPair(keyType);
  return { csrPem: await newCsr(key, `CN=${commonName}, O=Test`, altNames), keyPem: key.keyPem };
}

/** t.https, then the checks t.call makes: declared status, response schema, exact JSON content type, error envelope. */
export async function httpsChecked(t: TlsTestApp, options: TlsRequestOptions): Promise<TlsResponse> {
  const method = options.method ?? 'GET';
  const result = await t.https(options);
  const where = `${method} ${options.path} → ${result.status}`;
  const operation = operationFor(method, options.path);
  assert.ok(operation, `${where}: not in the contract`);
  assert.ok(
    operation.responseStatuses.includes(result.status),
    `${where}: status not declared for ${operation.operationId}`,
  );
  if (result.json !== undefined || result.status >= 400)
    assert.equal(result.headers['content-type'], 'application/json', `${where}: content type`);
  if (result.status >= 400) {
    const error = (result.json as { error?: { code?: unknown } } | undefined)?.error;
    assert.equal(typeof error?.code, 'string', `${where}: error envelope`);
  }
  if (result.json !== undefined)
    assert.deepEqual(validateResponse(operation, result.status, result.json), [], `${where}: response schema`);
  return result;
}

/** The error code of a failed TLS call, asserting the status first. */
export function assertTlsError(result: TlsResponse, status: number, code: string): void {
  assert.equal(result.status, status, result.text);
  assert.equal((result.json as { error: { code: string } }).error.code, code, result.text);
}
