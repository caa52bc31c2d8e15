// Real HTTPS against a listening test controller, with optional client certificates: what SDKs do for
// enrollment and certificate login, which inject() cannot show.
import { request } from 'node:https';
import type { AddressInfo } from 'node:net';
import { buildTestApp, type TestApp, type TestAppOptions } from './test-app.js';

export interface TlsResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: unknown;
}

export interface TlsRequestOptions {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** Client certificate chain (PEM, leaf first) and its private key, presented in the handshake. */
  cert?: string;
  key?: string;
  /** false: a connection of its own with a full handshake (no shared agent, no resumed TLS session). */
  agent?: false;
}

export interface TlsTestApp extends TestApp {
  port: number;
  /** The controller's root CA: what a client that did the EST bootstrap trusts. */
  rootCa: string;
  https(options: TlsRequestOptions): Promise<TlsResponse>;
  /** The certificate the TLS server presented (PEM), to verify enrollment JWTs against as the SDKs do. */
  serverCertificate(): Promise<string>;
}

export async function buildTlsTestApp(options: Omit<TestAppOptions, 'tls'> = {}): Promise<TlsTestApp> {
  const t = await buildTestApp({ ...options, tls: true });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const port = (t.app.server.address() as AddressInfo).port;
  const rootCa = t.deps.pki.rootCertPem;
  const https = (options: TlsRequestOptions) =>
    new Promise<TlsResponse>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          servername: 'localhost',
          method: options.method ?? 'GET',
          path: options.path,
          headers: options.headers,
          ca: rootCa,
          ...(options.cert ? { cert: options.cert, key: options.key } : {}),
          ...(options.agent === false ? { agent: false } : {}),
        },
        (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => {
            const type = String(res.headers['content-type'] ?? '');
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              text,
              json: type.startsWith('application/json') && text ? JSON.parse(text) : undefined,
            });
          });
        },
      );
      req.on('error', reject);
      req.end(options.body);
    });
  const serverCertificate = () =>
    new Promise<string>((resolve, reject) => {
      // A connection of its own (no agent): a resumed TLS session carries no certificate to read, and the shared
      // agent resumes whenever the previous connection's session ticket arrived in time.
      const options = {
        host: '127.0.0.1',
        port,
        servername: 'localhost',
        path: '/version',
        rejectUnauthorized: false,
        agent: false,
      };
      const req = request(options, (res) => {
        const socket = res.socket as import('node:tls').TLSSocket;
        const raw = socket.getPeerCertificate().raw;
        res.resume();
        resolve(
          `-----BEGIN CERTIFICATE-----\n${raw
            .toString('base64')
            .match(/.{1,64}/g)!
            .join('\n')}\n-----END CERTIFICATE-----\n`,
        );
      });
      req.on('error', reject);
      req.end();
    });
  return Object.assign(t, { port, rootCa, https, serverCertificate });
}
