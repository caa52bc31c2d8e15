// An external identity provider for tests: real signing keys, JWTs signed with jose, a self-signed certificate for
// certificate signers, and a JWKS endpoint on a free loopback port whose key list a test can change.
import 'reflect-metadata';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { webcrypto } from 'node:crypto';
import { X509CertificateGenerator } from '@peculiar/x509';
import { exportJWK, SignJWT, type JWK, type JWTPayload } from 'jose';

const day = 86_400_000;

export interface SigningKey {
  kid: string;
  alg: 'ES256' | 'RS256';
  privateKey: webcrypto.CryptoKey;
  publicJwk: JWK;
  /** A self-signed certificate of the public key, for certificate (certPem) signers. */
  certPem: string;
}

let counter = 0;

export async function newSigningKey(alg: 'ES256' | 'RS256' = 'ES256', now = new Date()): Promise<SigningKey> {
  const algorithm =
    alg === 'ES256'
      ? { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' }
      : { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' };
  const keys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const kid = `key-${++counter}-${Math.random().toString(36).slice(2, 8)}`;
  const certificate = await X509CertificateGenerator.createSelfSigned({
    name: `CN=test-issuer-${kid}`,
    keys,
    signingAlgorithm: algorithm,
    notBefore: new Date(now.getTime() - day),
    notAfter: new Date(now.getTime() + 30 * day),
  });
  const publicJwk = { ...(await exportJWK(keys.publicKey)), kid, alg, use: 'sig' };
  return { kid, alg, privateKey: keys.privateKey, publicJwk, certPem: certificate.toString('pem') };
}

export interface JwtOptions {
  issuer: string;
  audience?: string | string[];
  subject?: string;
  claims?: JWTPayload;
  /** Seconds since the epoch; omitted when undefined. */
  expiresAt?: number;
  notBefore?: number;
  /** Overrides the header kid (undefined: the key's; null: none). */
  kid?: string | null;
}

export async function signJwt(key: SigningKey, options: JwtOptions): Promise<string> {
  const jwt = new SignJWT({ ...options.claims }).setIssuer(options.issuer).setIssuedAt();
  const kid = options.kid === undefined ? key.kid : options.kid;
  jwt.setProtectedHeader(kid === null ? { alg: key.alg } : { alg: key.alg, kid });
  if (options.audience !== undefined) jwt.setAudience(options.audience);
  if (options.subject !== undefined) jwt.setSubject(options.subject);
  if (options.expiresAt !== undefined) jwt.setExpirationTime(options.expiresAt);
  if (options.notBefore !== undefined) jwt.setNotBefore(options.notBefore);
  return jwt.sign(key.privateKey);
}

export interface JwksServer {
  url: string;
  /** The keys served now; change it to rotate. */
  keys: JWK[];
  /** How many times the JWKS was fetched. */
  fetches: number;
  /** Extra routes: path → handler result (status, headers, body). */
  routes: Map<string, () => { status: number; headers?: Record<string, string>; body: string }>;
  close(): Promise<void>;
}

export async function startJwksServer(): Promise<JwksServer> {
  const state: JwksServer = { url: '', keys: [], fetches: 0, routes: new Map(), close: () => Promise.resolve() };
  const server: Server = createServer((request, response) => {
    const route = state.routes.get(request.url ?? '');
    if (route) {
      const { status, headers, body } = route();
      response.writeHead(status, headers).end(body);
      return;
    }
    if (request.url !== '/jwks') return void response.writeHead(404).end();
    state.fetches++;
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: state.keys }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return state;
}
