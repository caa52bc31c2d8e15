// The controller's PKI from files it did not make (upstream's `identity` and `edge.enrollment.signingCert`): a
// server certificate chain and key, a CA bundle, a signing certificate and key, without the root CA's key. So the
// routers and identities an upstream controller enrolled keep verifying, and new enrollments are signed as before.
import 'reflect-metadata';
import { X509Certificate as NodeX509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { errorMessage } from '../lib/error-message.js';
import { exportPrivateKeyPem, importPrivateKeyPem, isKeyForCertificate } from './crypto-keys.js';
import type { Pki } from './ensure-pki.js';
import { certificateFingerprint } from './fingerprint.js';
import { splitPemCertificates } from './pem.js';

/** Where each part is: a file path, a `file://` URL or inline `pem:` text (upstream identity.go LoadIdentity). */
export interface PkiFiles {
  serverCert: string;
  serverKey: string;
  /** The CA bundle: what clients and routers are told to trust (upstream `identity.ca`). */
  ca: string;
  signingCert: string;
  signingKey: string;
}

export class PkiFileError extends Error {}

function readSource(source: string, what: string): string {
  if (source.startsWith('pem:')) return source.slice('pem:'.length);
  const path = source.startsWith('file://') ? fileURLToPath(source) : source;
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new PkiFileError(`cannot read the ${what} (${path}): ${errorMessage(error)}`);
  }
}

function certificatesOf(source: string, what: string): string[] {
  const certificates = splitPemCertificates(readSource(source, what));
  if (certificates.length === 0) throw new PkiFileError(`the ${what} (${source}) holds no certificate`);
  return certificates;
}

function keyFor(source: string, certPem: string, what: string) {
  let key;
  try {
    key = importPrivateKeyPem(readSource(source, what));
  } catch (error) {
    if (error instanceof PkiFileError) throw error;
    throw new PkiFileError(`the ${what} (${source}) is not a private key`);
  }
  if (!isKeyForCertificate(key, certPem))
    throw new PkiFileError(`the ${what} (${source}) does not match its certificate`);
  return key;
}

const isCa = (pem: string) => new NodeX509Certificate(pem).ca;

/**
 * The server chain as TLS sends it: the file's certificates, completed from the CA certificates known here when
 * the file holds fewer (the leaf alone), up to but not including a self-signed root.
 */
function completeChain(fileChain: string[], known: string[]): string[] {
  const chain = [...fileChain];
  for (;;) {
    const last = new NodeX509Certificate(chain[chain.length - 1] ?? '');
    if (last.checkIssued(last)) return chain;
    const issuer = known.find((pem) => {
      const candidate = new NodeX509Certificate(pem);
      return last.checkIssued(candidate) && last.verify(candidate.publicKey) && !chain.includes(pem);
    });
    if (issuer === undefined || new NodeX509Certificate(issuer).checkIssued(new NodeX509Certificate(issuer)))
      return chain;
    chain.push(issuer);
  }
}

/** Reads and checks every part; each error names the part and where it was looked for. */
export function loadFilePki(files: PkiFiles): Pki {
  const [serverCertPem, ...serverRest] = certificatesOf(files.serverCert, 'server certificate');
  const [signingCertPem, ...signingRest] = certificatesOf(files.signingCert, 'signing certificate');
  const bundle = certificatesOf(files.ca, 'CA bundle');
  if (serverCertPem === undefined || signingCertPem === undefined) throw new PkiFileError('no certificate');
  const serverKey = keyFor(files.serverKey, serverCertPem, 'server key');
  const signingKey = keyFor(files.signingKey, signingCertPem, 'signing key');
  if (!isCa(signingCertPem)) throw new PkiFileError(`the signing certificate (${files.signingCert}) is not a CA`);
  // What clients trust: the bundle's and the signing chain's CA certificates, each once (upstream CalculateCaPems).
  const caCertificates = [...new Set([...bundle, signingCertPem, ...signingRest].filter(isCa))];
  const serverChain = completeChain([serverCertPem, ...serverRest], caCertificates);
  const root = caCertificates.find((pem) => new NodeX509Certificate(pem).checkIssued(new NodeX509Certificate(pem)));
  return {
    rootCertPem: root ?? caCertificates[0] ?? signingCertPem,
    signingCertPem,
    signingKey,
    serverCertPem,
    serverKey,
    serverKeyPem: exportPrivateKeyPem(serverKey),
    serverChainPem: serverChain.join(''),
    caBundlePem: caCertificates.join(''),
    serverCertFingerprint: certificateFingerprint(serverCertPem),
  };
}
