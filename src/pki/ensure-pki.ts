// Creates the controller's PKI on first start and loads it afterwards: root CA, edge signing CA, server certificate.
import 'reflect-metadata';
import { X509Certificate as NodeX509Certificate, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import { X509Certificate } from '@peculiar/x509';
import { systemClock, type Clock } from '../lib/clock.js';
import { createCaNameTag, createRootCa, createServerCertificate, createSigningCa } from './controller-certificates.js';
import { exportPrivateKeyPem, generateEcPrivateKey, importPrivateKeyPem, isKeyForCertificate } from './crypto-keys.js';
import { certificateFingerprint } from './fingerprint.js';
import { splitPemCertificates } from './pem.js';
import { preparePkiFolder, readPkiFile, writePkiFile, type PkiFile } from './pki-files.js';

export interface Pki {
  rootCertPem: string;
  /** The edge signing CA: issues identity, router and API-session certificates. */
  signingCertPem: string;
  signingKey: KeyObject;
  serverCertPem: string;
  /** Signs enrollment JWTs too: clients verify them against the TLS server certificate's key. */
  serverKey: KeyObject;
  /** `serverKey` as PKCS#8 PEM: Node 20's TLS `key` option accepts no KeyObject. */
  serverKeyPem: string;
  /** Server certificate followed by the signing CA, for the TLS `cert` option. */
  serverChainPem: string;
  /** The trust bundle: every CA certificate (root, then signing CA), PEM. */
  caBundlePem: string;
  /** Lowercase hex SHA-1 of the server certificate's DER: the enrollment JWT `kid`. */
  serverCertFingerprint: string;
}

export interface EnsurePkiOptions {
  /** Controller home folder; the PKI lives in `<home>/pki`. */
  home: string;
  /** Host clients reach the REST APIs at (`edge.api.advertisedHost`); the server certificate must name it. */
  advertisedHost: string;
  now?: Clock;
}

interface KeyedCertificate {
  certPem: string;
  key: KeyObject;
}

/** Reissue the server certificate when it has less than this left, so it never expires while running. */
const renewBeforeMs = 30 * 24 * 60 * 60 * 1000;
const caFiles: PkiFile[] = ['rootCert', 'rootKey', 'signingCert', 'signingKey'];

/**
 * Returns the controller's key material, creating it in `<home>/pki` on first start. Later starts reuse the CAs
 * as they are and issue a new server certificate from the same signing CA only when the advertised host is not
 * among its SANs, it is within 30 days of expiry, or it no longer matches the signing CA or its key.
 */
export async function ensurePki(options: EnsurePkiOptions): Promise<Pki> {
  if (options.advertisedHost === '') throw new Error('advertisedHost must not be empty');
  const now = options.now ?? systemClock;
  const folder = await preparePkiFolder(options.home);
  const cas = (await loadCas(folder, now())) ?? (await createCas(folder, now()));
  const server = await ensureServerCertificate(folder, cas.signing, options.advertisedHost, now());
  return {
    rootCertPem: cas.root.certPem,
    signingCertPem: cas.signing.certPem,
    signingKey: cas.signing.key,
    serverCertPem: server.certPem,
    serverKey: server.key,
    serverKeyPem: exportPrivateKeyPem(server.key),
    serverChainPem: server.certPem + cas.signing.certPem,
    caBundlePem: cas.root.certPem + cas.signing.certPem,
    serverCertFingerprint: certificateFingerprint(server.certPem),
  };
}

async function loadCas(
  folder: string,
  now: Date,
): Promise<{ root: KeyedCertificate; signing: KeyedCertificate } | undefined> {
  const [rootCert, rootKey, signingCert, signingKey] = await Promise.all(
    caFiles.map((file) => readPkiFile(folder, file)),
  );
  if (rootCert === undefined && rootKey === undefined && signingCert === undefined && signingKey === undefined)
    return undefined;
  if (rootCert === undefined || rootKey === undefined || signingCert === undefined || signingKey === undefined) {
    // Never silently replace a CA: certificates it issued (and clients that trust it) would stop working.
    throw new Error(
      `incomplete controller PKI in ${folder}: restore the CA files or remove the folder to create a new PKI`,
    );
  }
  return {
    root: loadCa(rootCert, rootKey, 'root CA', now),
    signing: loadCa(signingCert, signingKey, 'edge signing CA', now),
  };
}

function loadCa(certText: string, keyText: string, label: string, now: Date): KeyedCertificate {
  const certPem = splitPemCertificates(certText)[0];
  if (certPem === undefined) throw new Error(`the ${label} certificate file holds no certificate`);
  const key = importPrivateKeyPem(keyText);
  if (!isKeyForCertificate(key, certPem)) throw new Error(`the ${label} key does not match its certificate`);
  const notAfter = new X509Certificate(certPem).notAfter;
  if (notAfter <= now) throw new Error(`the ${label} expired at ${notAfter.toISOString()}`);
  return { certPem, key };
}

async function createCas(folder: string, now: Date): Promise<{ root: KeyedCertificate; signing: KeyedCertificate }> {
  const nameTag = createCaNameTag();
  const rootKey = generateEcPrivateKey();
  const root = { key: rootKey, certPem: await createRootCa(rootKey, nameTag, now) };
  const signingKey = generateEcPrivateKey();
  const signing = { key: signingKey, certPem: await createSigningCa(signingKey, nameTag, root, now) };
  await writePkiFile(folder, 'rootKey', exportPrivateKeyPem(root.key));
  await writePkiFile(folder, 'rootCert', root.certPem);
  await writePkiFile(folder, 'signingKey', exportPrivateKeyPem(signing.key));
  await writePkiFile(folder, 'signingCert', signing.certPem);
  return { root, signing };
}

async function ensureServerCertificate(
  folder: string,
  signing: KeyedCertificate,
  host: string,
  now: Date,
): Promise<KeyedCertificate> {
  // A renewal keeps the key: SDKs verify enrollment JWTs with the TLS server key, so outstanding JWTs stay valid.
  const keyText = await readPkiFile(folder, 'serverKey');
  const key = keyText === undefined ? generateEcPrivateKey() : importPrivateKeyPem(keyText);
  if (keyText === undefined) await writePkiFile(folder, 'serverKey', exportPrivateKeyPem(key));
  const certText = await readPkiFile(folder, 'serverCert');
  const current = certText === undefined ? undefined : splitPemCertificates(certText)[0];
  if (current !== undefined && isServerCertificateCurrent({ certPem: current, key }, signing.certPem, host, now)) {
    return { certPem: current, key };
  }
  const issuer = { ...signing, notAfter: new X509Certificate(signing.certPem).notAfter };
  const certPem = await createServerCertificate(key, issuer, host, now);
  await writePkiFile(folder, 'serverCert', certPem);
  return { certPem, key };
}

/** Whether the stored server certificate can stay: names the host, has over 30 days left, matches issuer and key. */
function isServerCertificateCurrent(
  server: KeyedCertificate,
  signingCertPem: string,
  host: string,
  now: Date,
): boolean {
  const cert = new NodeX509Certificate(server.certPem);
  const signer = new NodeX509Certificate(signingCertPem);
  const isForHost = isIP(host) === 0 ? cert.checkHost(host) !== undefined : cert.checkIP(host) !== undefined;
  const hasTimeLeft = new X509Certificate(server.certPem).notAfter.getTime() - renewBeforeMs > now.getTime();
  const isFromSigner = cert.checkIssued(signer) && cert.verify(signer.publicKey);
  return isForHost && hasTimeLeft && isFromSigner && isKeyForCertificate(server.key, server.certPem);
}
