// The certificates a client presented in the TLS handshake (leaf first), for cert login and CA enrollment.
import type { X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import type { FastifyRequest } from 'fastify';
import { peerCertificates } from '../lib/peer-certificates.js';

export function clientCertificatesOf(request: FastifyRequest): X509Certificate[] {
  const socket = request.raw.socket as Partial<TLSSocket>;
  return typeof socket.getPeerCertificate === 'function' ? peerCertificates({ getPeerCertificate: socket.getPeerCertificate.bind(socket) }) : [];
}
