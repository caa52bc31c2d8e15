// Upstream OpenZiti v1.1.8 as a reference peer: finds (or installs) the `ziti` binary, starts a controller with the
// edge APIs on a free loopback port, a temporary home and known admin credentials, and stops it. Used by
// `npm run test:upstream`, `npm run test:interop` and the benchmarks; `npm run upstream` starts one by hand.
// Nothing of upstream is committed: the binary lives in a cache folder outside the repository.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import https from 'node:https';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { freePort } from './free-port.js';

export const UPSTREAM_VERSION = 'v1.1.8';
const MODULE = 'github.com/openziti/ziti/ziti';

export interface UpstreamController {
  /** `https://127.0.0.1:<port>`: both APIs are under it (`/edge/management/v1`, `/edge/client/v1`). */
  baseUrl: string;
  port: number;
  pid: number;
  home: string;
  /** The root CA of the controller's PKI (what `ziti edge login --ca` and SDKs trust). */
  caFile: string;
  username: string;
  password: string;
  /** The controller's log (JSON lines), kept in the home folder. */
  logFile: string;
  stop(): Promise<void>;
}

export interface UpstreamStart {
  username?: string;
  password?: string;
  /** A fixed port; by default one the kernel hands out. */
  port?: number;
  /** Leave the home folder behind on stop (for looking at the database or the log). */
  keepHome?: boolean;
  /** More top-level configuration appended to the controller's (an `events:` section). */
  extraConfig?: string;
  timeoutMs?: number;
}

export class UpstreamUnavailable extends Error {}

/** Where installed binaries are kept: `ZITI_UPSTREAM_CACHE`, else `$XDG_CACHE_HOME/ziti-upstream`, else `~/.cache/ziti-upstream`. */
export function upstreamCacheDir(): string {
  return (
    process.env.ZITI_UPSTREAM_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'ziti-upstream')
  );
}

/**
 * The `ziti` binary of v1.1.8: `ZITI_UPSTREAM_BIN` if set, else the cached one, else `go install` into the cache; it must
 * report v1.1.8 (requireRelease).
 * Never builds from fetched sources: when the module proxy refuses the module the error says so and how to supply a
 * binary instead.
 */
export function upstreamBinary(): string {
  const given = process.env.ZITI_UPSTREAM_BIN;
  if (given !== undefined && given !== '') {
    if (!isExecutable(given)) throw new UpstreamUnavailable(`ZITI_UPSTREAM_BIN=${given} is not an executable file`);
    return requireRelease(given);
  }
  const binDir = join(upstreamCacheDir(), UPSTREAM_VERSION, 'bin');
  const cached = join(binDir, 'ziti');
  if (isExecutable(cached)) return requireRelease(cached);
  installWithGo(binDir);
  if (!isExecutable(cached)) throw new UpstreamUnavailable(`go install reported success but ${cached} is missing`);
  return requireRelease(cached);
}

/** Binaries whose `ziti version` already read v1.1.8. */
const releases = new Set<string>();

/**
 * Refuses a binary that does not report v1.1.8. A build without the release's version strings reports v0.0.0 and
 * does not behave like the release: its stand-alone controller round-trips every command through protobuf
 * (controller/controller.go, GetCommandDispatcher), which hides bugs the release shows (a PUT of a posture check
 * keeping its old type fields, explained-differences.yaml), and its routers announce v0.0.0.
 */
function requireRelease(binary: string): string {
  if (releases.has(binary)) return binary;
  const run = spawnSync(binary, ['version'], { env: zitiEnv(), encoding: 'utf8', timeout: 60_000 });
  const reported =
    run.status === 0
      ? run.stdout.trim()
      : `no version (${run.error?.message ?? lastLine(`${run.stdout}\n${run.stderr}`)})`;
  if (reported !== UPSTREAM_VERSION) {
    throw new UpstreamUnavailable(
      `${binary} reports ${reported}, not ${UPSTREAM_VERSION}: a build without the release's version strings behaves differently. ` +
        `Provide a binary whose \`ziti version\` prints ${UPSTREAM_VERSION}.`,
    );
  }
  releases.add(binary);
  return binary;
}

function installWithGo(binDir: string): void {
  const hint = `Provide a ziti ${UPSTREAM_VERSION} binary instead: set ZITI_UPSTREAM_BIN=/path/to/ziti, or place it at ${join(binDir, 'ziti')}.`;
  const goVersion = spawnSync('go', ['version'], { encoding: 'utf8' });
  if (goVersion.error || goVersion.status !== 0) {
    throw new UpstreamUnavailable(
      `upstream ${UPSTREAM_VERSION} is not installed and Go is not available to install it. ${hint}`,
    );
  }
  mkdirSync(binDir, { recursive: true });
  process.stderr.write(
    `installing ${MODULE}@${UPSTREAM_VERSION} with ${goVersion.stdout.trim()} into ${binDir} (minutes on a first run)…\n`,
  );
  const install = spawnSync('go', ['install', `${MODULE}@${UPSTREAM_VERSION}`], {
    encoding: 'utf8',
    env: { ...process.env, GOBIN: binDir },
    stdio: ['ignore', 'inherit', 'pipe'],
  });
  if (install.status === 0) return;
  const answer = install.stderr.trim();
  process.stderr.write(`${answer}\n`);
  // The module proxy answers 403 "This module version is not available" for every github.com/openziti module.
  const proxyAnswer = /server response:\s*(.+)/.exec(answer)?.[1]?.trim();
  const why = /\b403 Forbidden\b/.test(answer)
    ? `the Go module proxy answered 403 Forbidden${proxyAnswer ? ` ("${proxyAnswer}")` : ''}`
    : `go install failed: ${lastLine(answer)}`;
  throw new UpstreamUnavailable(`could not install ${MODULE}@${UPSTREAM_VERSION}: ${why}. ${hint}`);
}

/** Starts a controller with the edge management and client APIs and no router, and waits until it answers. */
export async function startUpstream(start: UpstreamStart = {}): Promise<UpstreamController> {
  const binary = upstreamBinary();
  const username = start.username ?? 'admin';
  const password = start.password ?? 'admin';
  const port = start.port ?? (await freePort());
  const home = mkdtempSync(join(tmpdir(), 'ziti-upstream-'));
  const removeHome = () => (start.keepHome ? undefined : rmSync(home, { recursive: true, force: true }));
  const config = join(home, 'ctrl.yaml');
  const logFile = join(home, 'controller.log');
  try {
    createPki(binary, join(home, 'pki'));
    writeFileSync(config, controllerConfig(home, port) + (start.extraConfig ?? ''));
    runZiti(binary, ['controller', 'edge', 'init', config, '-u', username, '-p', password], home);
  } catch (error) {
    removeHome();
    throw error;
  }
  const log = openSync(logFile, 'a');
  // No CLI agent: it would open a control socket per instance in /tmp.
  const child = spawn(binary, ['controller', 'run', config, '--cliagent=false'], {
    cwd: home,
    env: zitiEnv(),
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const stop = async () => {
    process.removeListener('exit', killOnExit);
    await stopChild(child, exited);
    removeHome();
  };
  const baseUrl = `https://127.0.0.1:${port}`;
  try {
    await waitForVersion(`${baseUrl}/edge/management/v1/version`, exited, start.timeoutMs ?? 60_000);
  } catch (error) {
    const tail = readFileSync(logFile, 'utf8').trim().split('\n').slice(-20).join('\n');
    await stop();
    throw new Error(`upstream controller did not start: ${(error as Error).message}\n${tail}`);
  }
  const caFile = join(home, 'pki', 'root-ca', 'certs', 'root-ca.cert');
  return { baseUrl, port, pid: child.pid!, home, caFile, username, password, logFile, stop };
}

/** Root CA → intermediate (the edge signing CA) → server and client certificates, P-256 like ours, as quickstart lays them out. */
function createPki(binary: string, root: string): void {
  const curve = '--curve=P256';
  const create = (what: string, ...args: string[]) =>
    runZiti(binary, ['pki', 'create', what, `--pki-root=${root}`, ...args], root);
  mkdirSync(root, { recursive: true });
  create('ca', '--ca-file=root-ca', '--ca-name=root-ca', curve);
  create(
    'intermediate',
    '--ca-name=root-ca',
    '--intermediate-name=intermediate-ca',
    '--intermediate-file=intermediate-ca',
    '--max-path-len=1',
    curve,
  );
  create(
    'server',
    '--ca-name=intermediate-ca',
    '--server-name=server',
    '--server-file=server',
    '--dns=localhost',
    '--ip=127.0.0.1,::1',
    curve,
  );
  create('client', '--ca-name=intermediate-ca', '--client-name=client', '--client-file=client', '--key-file=server');
}

/** A minimal controller configuration: both edge APIs (and fabric) and the control channel on one loopback port. */
function controllerConfig(home: string, port: number): string {
  const pki = (path: string) => JSON.stringify(join(home, 'pki', path));
  const address = `127.0.0.1:${port}`;
  return `v: 3
trustDomain: ziti-upstream-reference
db: ${JSON.stringify(join(home, 'ctrl.db'))}
identity:
  cert: ${pki('intermediate-ca/certs/client.cert')}
  server_cert: ${pki('intermediate-ca/certs/server.chain.pem')}
  key: ${pki('intermediate-ca/keys/server.key')}
  ca: ${pki('root-ca/certs/root-ca.cert')}
ctrl:
  listener: tls:${address}
edge:
  api:
    sessionTimeout: 30m
    address: ${address}
  enrollment:
    signingCert:
      cert: ${pki('intermediate-ca/certs/intermediate-ca.cert')}
      key: ${pki('intermediate-ca/keys/intermediate-ca.key')}
    edgeIdentity:
      duration: 180m
    edgeRouter:
      duration: 180m
web:
  - name: client-management
    bindPoints:
      - interface: ${address}
        address: ${address}
    apis:
      - binding: edge-management
      - binding: edge-client
      - binding: fabric
`;
}

/** The environment without the caller's ZITI_* settings, which the CLI would otherwise pick up. */
export function zitiEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('ZITI_')));
  return { ...env, ...extra };
}

function runZiti(binary: string, args: string[], cwd: string): void {
  const run = spawnSync(binary, args, { cwd, env: zitiEnv(), encoding: 'utf8', timeout: 60_000 });
  if (run.status !== 0) {
    throw new Error(
      `ziti ${args.slice(0, 3).join(' ')} failed (${run.status ?? run.signal}): ${lastLine(`${run.stdout}\n${run.stderr}`)}`,
    );
  }
}

async function waitForVersion(url: string, exited: Promise<void>, timeoutMs: number): Promise<void> {
  let hasExited = false;
  void exited.then(() => (hasExited = true));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (hasExited) throw new Error('the process exited');
    if ((await statusOf(url)) === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no 200 from ${url} within ${timeoutMs} ms`);
}

function statusOf(url: string): Promise<number> {
  return new Promise((resolve) => {
    const request = https.get(url, { rejectUnauthorized: false, agent: false, timeout: 1000 }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(0));
  });
}

async function stopChild(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return existsSync(file);
  } catch {
    return false;
  }
}

const lastLine = (text: string) =>
  text
    .trim()
    .split('\n')
    .filter((line) => line.trim() !== '')
    .at(-1) ?? '';

/** `npm run upstream [-- --port N]`: start one, print its URL and credentials, stop on SIGINT/SIGTERM. */
async function main(): Promise<void> {
  const portFlag = process.argv.indexOf('--port');
  const port = portFlag > 0 ? Number(process.argv[portFlag + 1]) : undefined;
  const upstream = await startUpstream(port === undefined ? {} : { port });
  process.stdout.write(`${upstream.baseUrl}\n`);
  process.stderr.write(
    `upstream ${UPSTREAM_VERSION} ready: admin ${upstream.username}/${upstream.password}, CA ${upstream.caFile}, log ${upstream.logFile}\n`,
  );
  const stop = () => void upstream.stop().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error: unknown) => {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(1);
  });
}
