// Certificates the controller issues from clients' CSRs (docs/reference/pki-enrollment-auth.md §1.3): identities,
// routers, API sessions.
import 'reflect-metadata';
import { createHash, createPublicKey, type KeyObject } from 'node:crypto';
import {
  ExtendedKeyUsage,
  ExtendedKeyUsageExtension,
  KeyUsageFlags,
  KeyUsagesExtension,
  Pkcs10CertificateRequest,
  SubjectAlternativeNameExtension,
  type Extension,
  type JsonName,
} from '@peculiar/x509';
import { ApiError } from '../errors/api-error.js';
import type { Pki } from './ensure-pki.js';
import { issueCertificate } from './issue-certificate.js';
import { errorMessage } from '../lib/error-message.js';

export type CertificateUse = 'client' | 'server';

export interface SignCsrOptions {
  use: CertificateUse;
  now: Date;
  /** Validity in milliseconds: a year for identities and routers, 12 hours for API-session certificates. */
  lifetimeMs: number;
  /** Router certificates must carry the router id as CN (upstream refuses others with COULD_NOT_PROCESS_CSR). */
  requiredCommonName?: string;
  /** Copy the CSR's subject alternative names (router certificates) or leave them out (identity certificates). */
  keepAltNames: boolean;
  /** Start validity a minute early, as upstream does, for clients whose clocks run slightly behind. */
  backdate?: boolean;
}

export interface IssuedCertificate {
  certPem: string;
  /** The leaf followed by the signing CA: what clients need to build a path to the root. */
  chainPem: string;
  fingerprint: string;
}

const YEAR_MS = 365 * 24 * 60 * 60_000;
export const lifetimes = { year: YEAR_MS, apiSession: 12 * 60 * 60_000 } as const;

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/;

/**
 * Parses one PEM CSR and checks its self-signature; anything else is 400 COULD_NOT_PROCESS_CSR, with upstream's
 * words for a CSR that is empty, not PEM or followed by more.
 */
export async function parseCsr(csrPem: unknown): Promise<Pkcs10CertificateRequest> {
  const text = typeof csrPem === 'string' ? csrPem.trim() : '';
  if (text === '') throw ApiError.withMessage('COULD_NOT_PROCESS_CSR', 'csrPem must not be null or empty');
  const block = PEM_BLOCK.exec(text);
  if (!block) throw ApiError.withMessage('COULD_NOT_PROCESS_CSR', 'could not decode csrPem as PEM');
  if (block.index + block[0].length !== text.length)
    throw ApiError.withMessage('COULD_NOT_PROCESS_CSR', 'unexpected PEM blocks at end of CSR');
  let csr: Pkcs10CertificateRequest;
  try {
    const [, label = ''] = block;
    if (!/^(NEW )?CERTIFICATE REQUEST$/.test(label)) throw new Error(`a ${label} block is not a certificate request`);
    csr = new Pkcs10CertificateRequest(block[0]);
  } catch (error) {
    throw ApiError.withMessage('COULD_NOT_PROCESS_CSR', `could not parse the CSR: ${errorMessage(error)}`);
  }
  if (!(await csr.verify().catch(() => false)))
    throw ApiError.withMessage('COULD_NOT_PROCESS_CSR', 'the CSR signature is invalid');
  return csr;
}

export async function signCsr(pki: Pki, csrPem: unknown, options: SignCsrOptions): Promise<IssuedCertificate> {
  const csr = await parseCsr(csrPem);
  if (options.requiredCommonName !== undefined && commonName(csr.subject) !== options.requiredCommonName) {
    throw ApiError.withMessage('COULD_NOT_PROCESS_CSR', `the CSR common name must be ${options.requiredCommonName}`);
  }
  const subjectKey: KeyObject = createPublicKey({
    key: Buffer.from(csr.publicKey.rawData),
    format: 'der',
    type: 'spki',
  });
  const extensions: Extension[] = [
    new KeyUsagesExtension(
      KeyUsageFlags.digitalSignature | KeyUsageFlags.keyEncipherment | KeyUsageFlags.dataEncipherment,
      true,
    ),
    new ExtendedKeyUsageExtension([
      options.use === 'client' ? ExtendedKeyUsage.clientAuth : ExtendedKeyUsage.serverAuth,
    ]),
  ];
  const altNames = csr.extensions.find(
    (extension): extension is SubjectAlternativeNameExtension => extension instanceof SubjectAlternativeNameExtension,
  );
  if (options.keepAltNames && altNames) extensions.push(new SubjectAlternativeNameExtension(altNames.names.toJSON()));
  const start = options.backdate === false ? options.now.getTime() : options.now.getTime() - 60_000;
  const certPem = await issueCertificate({
    subject: goSubject(csr),
    subjectKey,
    issuerCertPem: pki.signingCertPem,
    issuerKey: pki.signingKey,
    notBefore: new Date(start),
    notAfter: new Date(options.now.getTime() + options.lifetimeMs),
    extensions,
  });
  return { certPem, chainPem: `${certPem}${pki.signingCertPem.trimEnd()}\n`, fingerprint: fingerprintOf(certPem) };
}

/**
 * Go's pkix.Name fields in the order its ToRDNSequence writes them (country first, common name and serial number
 * last), by @peculiar's short name or OID; the values of one field share one RDN, and only the last common name and
 * serial number count.
 */
const GO_NAME_FIELDS: ReadonlyArray<{ types: readonly [string, ...string[]]; single?: true }> = [
  { types: ['C', '2.5.4.6'] },
  { types: ['ST', '2.5.4.8'] },
  { types: ['L', '2.5.4.7'] },
  { types: ['2.5.4.9'] },
  { types: ['2.5.4.17'] },
  { types: ['O', '2.5.4.10'] },
  { types: ['OU', '2.5.4.11'] },
  { types: ['CN', '2.5.4.3'], single: true },
  { types: ['2.5.4.5'], single: true },
];

/**
 * The subject upstream's signer gives a certificate issued from a CSR: Go rebuilds it from the fields pkix.Name
 * knows, in its own order, whatever order the CSR had, and drops any other attribute.
 */
export function goSubject(csr: Pkcs10CertificateRequest): JsonName {
  const given = csr.subjectName.toJSON();
  const subject: JsonName = [];
  for (const { types, single } of GO_NAME_FIELDS) {
    const values = given.flatMap((rdn) =>
      Object.entries(rdn).flatMap(([type, found]) => (types.includes(type) ? found : [])),
    );
    if (values.length > 0) subject.push({ [types[0]]: single ? values.slice(-1) : values });
  }
  return subject.length > 0 ? subject : [{ CN: ['unnamed'] }];
}

function commonName(subject: string): string | undefined {
  return /(?:^|,\s*)CN=([^,]+)/.exec(subject)?.[1]?.trim();
}

function fingerprintOf(pem: string): string {
  const der = Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
  return createHash('sha1').update(der).digest('hex');
}
