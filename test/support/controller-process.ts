// Controllers as real processes (src/main.ts through tsx, as `npm test` runs the sources): started on a free
// loopback port, waited for, spoken to over HTTPS on a fresh connection per request, and stopped by signal.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { request } from 'node:https';
import { createServer } from 'node:net';
import { join } from 'node:path';

export const projectRoot = new URL('../../', import.meta.url).pathname;

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

export interface Running {
  child: ChildProcess;
  stdout: () => string;
}

/** The TypeScript sources through tsx, as `npm test` runs them; the build test passes the compiled entry instead. */
const sourceEntry = ['--import', 'tsx', 'src/main.ts'];

export interface StartOptions {
  env?: Record<string, string>;
  entry?: string[];
  /** More command-line flags. */
  args?: string[];
}

export function startController(
  home: string,
  port: number,
  { env = {}, entry = sourceEntry, args = [] }: StartOptions = {},
): Running {
  // The control plane on the API port (by ALPN), so processes started side by side need one free port each.
  const child = spawn(
    process.execPath,
    [...entry, '--home', home, '--port', String(port), '--bind', '127.0.0.1', '--ctrl-port', String(port), ...args],
    {
      cwd: projectRoot,
      env: { ...process.env, ZITI_LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return { child, stdout: () => out };
}

export interface HttpsReply {
  status: number;
  text: string;
  headers: Record<string, string | string[] | undefined>;
}

/** One request on a connection of its own (with `workers`, successive requests may reach different processes). */
export function get(
  port: number,
  path: string,
  ca: string,
  method = 'GET',
  body?: string,
  headers: Record<string, string> = {},
): Promise<HttpsReply> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method,
        ca,
        servername: 'localhost',
        agent: false,
        headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text, headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Waits until the controller answers over HTTPS; returns the root CA its home holds. */
export async function waitReady(port: number, home: string, running: Running): Promise<string> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (running.child.exitCode !== null) throw new Error(`controller exited: ${running.stdout()}`);
    const caFile = join(home, 'pki', 'root-ca.cert.pem');
    if (existsSync(caFile)) {
      const ca = readFileSync(caFile, 'utf8');
      const ok = await get(port, '/edge/client/v1/version', ca).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) return ca;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`controller not ready: ${running.stdout()}`);
}

export function stopController(running: Running, signal: NodeJS.Signals): Promise<number | null> {
  return new Promise((resolve) => {
    if (running.child.exitCode !== null || running.child.signalCode !== null) {
      resolve(running.child.exitCode);
      return;
    }
    running.child.on('exit', (code) => resolve(code));
    running.child.kill(signal);
  });
}
