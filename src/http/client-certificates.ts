// The certificates a client presented in the TLS handshake (leaf first), for cert login and CA enrollment.
import type { X509Certificate } from 'node:crypto';
import { TLSSocket } from 'node:tls';
import type { FastifyRequest } from 'fastify';
import { peerCertificates } from '../lib/peer-certificates.js';

export function clientCertificatesOf(request: FastifyRequest): X509Certificate[] {
  // A plain socket (app.inject(), the metrics listener) has no certificates.
  const socket = request.raw.socket;
  return socket instanceof TLSSocket ? peerCertificates(socket) : [];
}
