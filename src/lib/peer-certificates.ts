// The certificates a TLS peer presented in the handshake, leaf first. TLS requests them but never verifies them
// (no `ca` option): each use verifies them against its own roots (cert login, CA enrollment, router connections).
import { X509Certificate } from 'node:crypto';
import type { DetailedPeerCertificate, TLSSocket } from 'node:tls';

export function peerCertificates(socket: Pick<TLSSocket, 'getPeerCertificate'>): X509Certificate[] {
  const chain: X509Certificate[] = [];
  const seen = new Set<string>();
  let current: DetailedPeerCertificate | undefined = socket.getPeerCertificate(true);
  while (current?.raw && !seen.has(current.fingerprint256)) {
    seen.add(current.fingerprint256);
    chain.push(new X509Certificate(current.raw));
    current = current.issuerCertificate;
  }
  return chain;
}
