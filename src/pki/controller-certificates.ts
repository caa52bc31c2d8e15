// The controller's own certificate profiles: root CA, edge signing CA and the web listener's server certificate.
import 'reflect-metadata';
import { isIP } from 'node:net';
import { randomBytes, type KeyObject } from 'node:crypto';
import {
  BasicConstraintsExtension,
  ExtendedKeyUsage,
  ExtendedKeyUsageExtension,
  KeyUsageFlags,
  KeyUsagesExtension,
  SubjectAlternativeNameExtension,
  type JsonGeneralName,
} from '@peculiar/x509';
import { issueCertificate } from './issue-certificate.js';

const dayMs = 24 * 60 * 60 * 1000;
/** Validity periods of `ziti pki create` (ca/intermediate 3650 days, server 365 days). */
const caValidityDays = 3650;
const serverValidityDays = 365;
/** Backdating absorbs small clock differences between the controller and clients right after first start. */
const backdateMs = 60 * 60 * 1000;

/** A short random tag for CA names, so the CAs of different installations are told apart by subject. */
export function createCaNameTag(): string {
  return randomBytes(4).toString('hex');
}

/** Self-signed root CA: basicConstraints CA (critical), keyCertSign|cRLSign (critical), SKI, 10 years. */
export function createRootCa(key: KeyObject, nameTag: string, now: Date): Promise<string> {
  return issueCertificate({
    subject: `O=OpenZiti, CN=Ziti Controller Root CA ${nameTag}`,
    subjectKey: key,
    issuerKey: key,
    notBefore: new Date(now.getTime() - backdateMs),
    notAfter: new Date(now.getTime() + caValidityDays * dayMs),
    extensions: caExtensions(undefined),
    hasSubjectKeyId: true,
  });
}

/**
 * The edge signing CA (upstream `edge.enrollment.signingCert`), issued by the root: path length 0 because it only
 * signs leaf certificates (identities, routers, API sessions). 10 years, AKI/SKI.
 */
export function createSigningCa(
  key: KeyObject,
  nameTag: string,
  root: { certPem: string; key: KeyObject },
  now: Date,
): Promise<string> {
  return issueCertificate({
    subject: `O=OpenZiti, CN=Ziti Controller Edge Signing CA ${nameTag}`,
    subjectKey: key,
    issuerCertPem: root.certPem,
    issuerKey: root.key,
    notBefore: new Date(now.getTime() - backdateMs),
    notAfter: new Date(now.getTime() + caValidityDays * dayMs),
    extensions: caExtensions(0),
    hasSubjectKeyId: true,
  });
}

/**
 * The REST listener's certificate, issued by the signing CA. Its SANs must cover the host in the enrollment JWT
 * `iss` (Go and C SDKs verify the hostname against it), plus the loopback names the quickstart also puts in.
 * It never outlives its issuer.
 */
export function createServerCertificate(
  key: KeyObject,
  issuer: { certPem: string; key: KeyObject; notAfter: Date },
  advertisedHost: string,
  now: Date,
): Promise<string> {
  const notAfter = Math.min(now.getTime() + serverValidityDays * dayMs, issuer.notAfter.getTime());
  return issueCertificate({
    // CN is informational only (clients match SANs) and capped at 64 characters (RFC 5280 ub-common-name).
    subject: [{ CN: [advertisedHost.length <= 64 ? advertisedHost : 'ziti-controller'] }],
    subjectKey: key,
    issuerCertPem: issuer.certPem,
    issuerKey: issuer.key,
    notBefore: new Date(now.getTime() - backdateMs),
    notAfter: new Date(notAfter),
    extensions: [
      new KeyUsagesExtension(KeyUsageFlags.digitalSignature | KeyUsageFlags.keyEncipherment, true),
      new ExtendedKeyUsageExtension([ExtendedKeyUsage.serverAuth, ExtendedKeyUsage.clientAuth]),
      new SubjectAlternativeNameExtension(serverAltNames(advertisedHost)),
    ],
  });
}

/** SANs for the server certificate: the advertised host (IP or DNS), `localhost`, `127.0.0.1` and `::1`, once each. */
export function serverAltNames(advertisedHost: string): JsonGeneralName[] {
  const names: JsonGeneralName[] = [
    { type: 'dns', value: 'localhost' },
    { type: 'ip', value: '127.0.0.1' },
    { type: 'ip', value: '::1' },
  ];
  const advertised: JsonGeneralName = { type: isIP(advertisedHost) === 0 ? 'dns' : 'ip', value: advertisedHost };
  const isListed = names.some((name) => name.type === advertised.type && name.value === advertised.value.toLowerCase());
  return isListed ? names : [advertised, ...names];
}

function caExtensions(pathLength: number | undefined): [BasicConstraintsExtension, KeyUsagesExtension] {
  return [
    new BasicConstraintsExtension(true, pathLength, true),
    new KeyUsagesExtension(KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign, true),
  ];
}
