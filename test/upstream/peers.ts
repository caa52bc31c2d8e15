// The two controllers the corpus is replayed against, each over real HTTPS on a loopback port: upstream v1.1.8
// (scripts/upstream.ts) and ours (src/main.ts in a child process, as operators run it).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, loopbackControllerArgs, startServer } from '../../bench/server-process.js';
import { ROOT } from '../../bench/scenario-run.js';
import { startUpstream } from '../../scripts/upstream.js';

export type PeerName = 'upstream' | 'ours';

export interface Peer {
  name: PeerName;
  baseUrl: string;
  /** The controller's root CA: replies are read over verified TLS, as an SDK after its EST bootstrap would. */
  caPem: string;
  username: string;
  password: string;
  /** The controller's home folder (its PKI is under `pki/`). */
  home: string;
  stop(): Promise<void>;
}

export const ADMIN_USERNAME = 'admin';
/** Meets every password rule either controller has, so the admin logs in the same way on both. */
export const ADMIN_PASSWORD = 'Reference-Admin-1!';

export async function startUpstreamPeer(): Promise<Peer> {
  const upstream = await startUpstream({ username: ADMIN_USERNAME, password: ADMIN_PASSWORD });
  const caPem = readFileSync(upstream.caFile, 'utf8');
  return {
    name: 'upstream',
    baseUrl: upstream.baseUrl,
    caPem,
    username: ADMIN_USERNAME,
    password: ADMIN_PASSWORD,
    home: upstream.home,
    stop: () => upstream.stop(),
  };
}

export async function startOurPeer(): Promise<Peer> {
  const home = mkdtempSync(join(tmpdir(), 'ziti-ours-'));
  const port = await freePort();
  // Advertised as 127.0.0.1 like the upstream instance, so links and enrollment JWTs name the same kind of host.
  const args = [...loopbackControllerArgs(home, port), '--address', '127.0.0.1'];
  args.push('--username', ADMIN_USERNAME, '--password', ADMIN_PASSWORD, '--log-level', 'warn');
  const server = await startServer({
    name: 'our controller',
    args,
    port,
    readyPath: '/edge/management/v1/version',
    cwd: ROOT,
  });
  return {
    name: 'ours',
    baseUrl: server.baseUrl,
    caPem: readFileSync(join(home, 'pki', 'root-ca.cert.pem'), 'utf8'),
    username: ADMIN_USERNAME,
    password: ADMIN_PASSWORD,
    home,
    async stop() {
      await server.stop();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

export interface WireRequest {
  method: string;
  /** Path and query, from the host on. */
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** A client certificate chain (PEM) and its key, presented in the TLS handshake. */
  cert?: string;
  key?: string;
}

export interface WireReply {
  status: number;
  contentType: string | undefined;
  /** Every response header, by lower-case name (a repeated header's values joined by `, `). */
  headers: Record<string, string>;
  text: string;
  /** The parsed body when the reply is JSON. */
  json: unknown;
}

/** One request on a fresh connection (a client certificate belongs to the handshake, so nothing is pooled). */
export function sendRequest(peer: Peer, request: WireRequest): Promise<WireReply> {
  return new Promise((resolve, reject) => {
    const outgoing = https.request(
      `${peer.baseUrl}${request.path}`,
      {
        method: request.method,
        // Node sends a DELETE body without a length unless told; real clients always frame it.
        headers:
          request.body === undefined
            ? request.headers
            : { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
        ca: peer.caPem,
        agent: false,
        ...(request.cert ? { cert: request.cert, key: request.key } : {}),
      },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('error', reject);
        incoming.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const contentType = incoming.headers['content-type'];
          const headers = Object.fromEntries(
            Object.entries(incoming.headers).map(([name, value]) => [name, [value ?? ''].flat().join(', ')]),
          );
          resolve({ status: incoming.statusCode ?? 0, contentType, headers, text, json: parseJson(contentType, text) });
        });
      },
    );
    outgoing.setTimeout(30_000, () => outgoing.destroy(new Error(`timeout: ${request.method} ${request.path}`)));
    outgoing.on('error', reject);
    outgoing.end(request.body);
  });
}

function parseJson(contentType: string | undefined, text: string): unknown {
  if (!contentType?.startsWith('application/json') || text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
