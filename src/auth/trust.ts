// Client-certificate trust: which anchor (the controller's own CAs, or a third-party CA) a presented chain leads to.
// TLS never verifies client certificates (docs/design.md part 0), so every use checks the chain here against its own
// roots.
import { X509Certificate } from 'node:crypto';
import type { Pki } from '../pki/ensure-pki.js';
import { splitPemCertificates } from '../pki/pem.js';
import { readKeys } from '../store/changes.js';
import { verifiedCas } from '../store/queries/cas.js';
import { ReadCaches } from '../store/read-cache.js';
import type { Store } from '../store/store.js';

export interface TrustAnchor {
  certificate: X509Certificate;
  /** The third-party CA (`/cas`) the anchor belongs to; undefined for the controller's own CAs. */
  caId: string | undefined;
}

export interface PathOptions {
  now: Date;
  /** Check the leaf's own validity window; certificate login leaves that to the auth policy (`allowExpiredCerts`). */
  checkLeafValidity: boolean;
  /** Require the clientAuth extended key usage, as upstream's enrollment does (login accepts any usage). */
  requireClientAuth: boolean;
}

const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
const ANY_USAGE = '2.5.29.37.0';
/** Longest chain of presented intermediates followed, well beyond real deployments (root → 2 intermediates). */
const MAX_INTERMEDIATES = 5;

export function anchorsFromPem(pem: string, caId?: string): TrustAnchor[] {
  return splitPemCertificates(pem).map((block) => ({ certificate: new X509Certificate(block), caId }));
}

export function isValidAt(certificate: X509Certificate, now: Date): boolean {
  const time = now.getTime();
  return Date.parse(certificate.validFrom) <= time && time <= Date.parse(certificate.validTo);
}

/** `child` carries `parent`'s name and signature, and `parent` may sign certificates (CA, key usage). */
function isIssuedBy(child: X509Certificate, parent: X509Certificate): boolean {
  return parent.ca && child.checkIssued(parent) && child.verify(parent.publicKey);
}

/** No extended key usage extension means any usage, as in Go's crypto/x509. */
function allowsClientAuth(certificate: X509Certificate): boolean {
  // Node leaves it undefined without the extension, which its type does not say.
  const usages: readonly string[] | undefined = certificate.keyUsage;
  return usages === undefined || usages.includes(CLIENT_AUTH) || usages.includes(ANY_USAGE);
}

/**
 * The anchor a leaf chains to through the presented intermediates, or undefined. Intermediates and anchors must be
 * CAs valid now; the first anchor found wins, in the order given.
 */
export function verifyPath(
  leaf: X509Certificate,
  intermediates: readonly X509Certificate[],
  anchors: readonly TrustAnchor[],
  options: PathOptions,
): TrustAnchor | undefined {
  if (options.checkLeafValidity && !isValidAt(leaf, options.now)) return undefined;
  if (options.requireClientAuth && !allowsClientAuth(leaf)) return undefined;
  const usable = anchors.filter((anchor) => isValidAt(anchor.certificate, options.now));
  const candidates = intermediates.filter((certificate) => certificate.ca && isValidAt(certificate, options.now));
  const search = (current: X509Certificate, used: ReadonlySet<X509Certificate>): TrustAnchor | undefined => {
    const anchor = usable.find((candidate) => isIssuedBy(current, candidate.certificate));
    if (anchor || used.size >= MAX_INTERMEDIATES) return anchor;
    for (const next of candidates) {
      if (used.has(next) || !isIssuedBy(current, next)) continue;
      const found = search(next, new Set([...used, next]));
      if (found) return found;
    }
    return undefined;
  };
  return search(leaf, new Set());
}

/** The controller's own trust bundle, parsed once per PKI. */
const bundleAnchors = new WeakMap<Pki, TrustAnchor[]>();

export function controllerAnchors(pki: Pki): TrustAnchor[] {
  let anchors = bundleAnchors.get(pki);
  if (!anchors) bundleAnchors.set(pki, (anchors = anchorsFromPem(pki.caBundlePem)));
  return anchors;
}

/** The third-party CAs' anchors, kept until a CA changes (here or on another instance): every cert login needs them. */
const loginCaAnchors = new ReadCaches<TrustAnchor[]>(1);

/** Roots for certificate login: the controller's bundle, then every verified third-party CA with auth enabled. */
export async function loginAnchors(store: Store, pki: Pki): Promise<TrustAnchor[]> {
  const cas = await loginCaAnchors
    .of(store)
    .get('login', readKeys.cas, async () =>
      (await store.read((db) => verifiedCas(db, true))).flatMap((ca) => anchorsFromPem(ca.certPem, ca.id)),
    );
  return [...controllerAnchors(pki), ...cas];
}
