// The certificates a client presented in the TLS handshake (leaf first), for cert login and CA enrollment.
// TLS requests them but never verifies them (no `ca` option): each use verifies them against its own roots.
import { X509Certificate } from 'node:crypto';
import type { TLSSocket, DetailedPeerCertificate } from 'node:tls';
import type { FastifyRequest } from 'fastify';

export function clientCertificatesOf(request: FastifyRequest): X509Certificate[] {
  const socket = request.raw.socket as Partial<TLSSocket>;
  if (typeof socket.getPeerCertificate !== 'function') return [];
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
