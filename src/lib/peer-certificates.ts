// The certificates a TLS peer presented in the handshake, leaf first. TLS requests them but never verifies them
// (no `ca` option): each use verifies them against its own roots (cert login, CA enrollment, router connections).
import type { X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';

type PeerSocket = Pick<TLSSocket, 'getPeerX509Certificate'>;

/**
 * Each connection's chain as first read. Node links the presented intermediates to the leaf it answers by taking
 * them out of the connection's own list (FindIssuer deletes what it links), so a second read on a kept-alive
 * connection answers the leaf alone: the chain is read once and kept with the connection.
 */
const chains = new WeakMap<PeerSocket, X509Certificate[]>();

export function peerCertificates(socket: PeerSocket): X509Certificate[] {
  // Node's X509 objects, linked by `issuerCertificate`: the detailed getPeerCertificate(true) form builds a JS object
  // of every field of every certificate, which then had to be parsed again (a cert login's largest cost after the
  // TLS handshake).
  const leaf = socket.getPeerX509Certificate();
  if (!leaf) return [];
  const kept = chains.get(socket);
  // A renegotiation may have brought another certificate: the chain is read again then.
  if (kept?.[0]?.fingerprint256 === leaf.fingerprint256) return kept;
  const chain: X509Certificate[] = [];
  const seen = new Set<string>();
  for (let current: X509Certificate | undefined = leaf; current; current = current.issuerCertificate) {
    if (seen.has(current.fingerprint256)) break;
    seen.add(current.fingerprint256);
    chain.push(current);
  }
  chains.set(socket, chain);
  return chain;
}
