// A small overlay network of real upstream programs for the traffic interop run and the circuit benchmark: a controller
// (ours, or upstream v1.1.8 for comparison), one upstream v1.1.8 edge router enrolled and running against it, identities
// enrolled with `ziti edge enroll`, an echo service with its policies, `ziti demo echo-server` hosting it and
// `ziti demo zcat` dialling it. Everything goes through the management REST API, so the same code drives both controllers.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, loopbackControllerArgs, startServer, type ServerProcess } from '../../bench/server-process.js';
import { ROOT } from '../../bench/scenario-run.js';
import { httpsRequest } from '../../bench/https-client.js';
import {
  startUpstream,
  UpstreamUnavailable,
  upstreamBinary,
  zitiEnv,
  type UpstreamController,
} from '../../scripts/upstream.js';
import { ADMIN_PASSWORD, ADMIN_USERNAME } from '../upstream/peers.js';
import { routerConfig, type ProxyListener } from './router-config.js';
import { createScratchSchema } from '../../src/store/postgres/scratch-schema.js';

export type ControllerKind = 'ours' | 'upstream';

/** The `ziti` v1.1.8 binary, or undefined (with the reason on stderr) so callers skip. */
export function findZiti(): string | undefined {
  try {
    return upstreamBinary();
  } catch (error) {
    if (!(error instanceof UpstreamUnavailable)) throw error;
    process.stderr.write(`skipping: ${error.message}\n`);
    return undefined;
  }
}

export interface NetworkController {
  kind: ControllerKind;
  pid: () => number;
  logFile: string;
  /** The root CA of the controller's PKI (what `ziti edge login --ca` trusts). */
  caFile: string;
  baseUrl: string;
  api(method: string, path: string, body?: unknown): Promise<{ status: number; data: Record<string, unknown> }>;
  /** The same, under `/fabric/v1` (with the admin's API session, as the `ziti fabric` commands send it). */
  fabric(method: string, path: string, body?: unknown): Promise<{ status: number; data: Record<string, unknown> }>;
  /** Stops and starts it again on the same home and ports. */
  restart(): Promise<void>;
  /** SIGKILL (a crash: nothing is closed or released), then started again on the same home and ports. */
  killAndStart(whileDown?: () => Promise<void>): Promise<void>;
  stop(): Promise<void>;
}

export interface Started {
  controller: NetworkController;
  ctrlEndpoint: string;
}

/**
 * Our controller's command line for the interop runs: on loopback (or on `address` alone, one end of a veth pair for
 * a router in a network namespace), the shared admin, its own ports.
 */
export function ourControllerArgs(home: string, apiPort: number, ctrlPort: number, address = '127.0.0.1'): string[] {
  const args = loopbackControllerArgs(home, apiPort, ctrlPort);
  args[args.indexOf('--bind') + 1] = address;
  return [
    ...args,
    '--address',
    address,
    '--ctrl-bind',
    address,
    '--username',
    ADMIN_USERNAME,
    '--password',
    ADMIN_PASSWORD,
    '--log-level',
    'info',
  ];
}

/**
 * `settings`: top-level YAML both controllers read (an `events:` section), in our settings file or upstream's config.
 * `address`: where ours listens and is reached (default loopback).
 */
export async function startController(
  kind: ControllerKind,
  work: string,
  settings?: string,
  address = '127.0.0.1',
): Promise<Started> {
  if (kind === 'upstream') {
    const upstream: UpstreamController = await startUpstream({
      username: ADMIN_USERNAME,
      password: ADMIN_PASSWORD,
      ...(settings ? { extraConfig: settings } : {}),
    });
    const port = upstream.port;
    return {
      controller: managed(kind, () => upstream.pid, upstream.logFile, upstream.caFile, `https://127.0.0.1:${port}`, {
        stop: () => upstream.stop(),
        restart: () => Promise.reject(new Error('restarting the upstream controller is not supported here')),
      }),
      ctrlEndpoint: `tls:127.0.0.1:${port}`,
    };
  }
  const home = mkdtempSync(join(tmpdir(), 'ziti-ours-net-'));
  const [apiPort, ctrlPort] = [await freePort(), await freePort()];
  const logFile = join(work, 'controller.log');
  const settingsFile = join(work, 'ctrl.yml');
  if (settings) writeFileSync(settingsFile, settings);
  // ZITI_INTEROP_DATABASE_URL: ours on PostgreSQL, in a schema of its own dropped when it stops.
  const databaseUrl = process.env.ZITI_INTEROP_DATABASE_URL;
  const schema = databaseUrl ? await createScratchSchema(databaseUrl, 'ziti_interop') : undefined;
  const args = [
    ...ourControllerArgs(home, apiPort, ctrlPort, address),
    ...(settings ? ['--config', settingsFile] : []),
    ...(schema ? ['--database-url', schema.url] : []),
  ];
  const start = () =>
    startServer({
      name: 'our controller',
      args,
      port: apiPort,
      host: address,
      readyPath: '/edge/management/v1/version',
      cwd: ROOT,
      stdoutFile: logFile,
    });
  let server: ServerProcess = await start();
  const controller = managed(
    kind,
    () => server.pid,
    logFile,
    join(home, 'pki', 'root-ca.cert.pem'),
    `https://${address}:${apiPort}`,
    {
      stop: async () => {
        await server.stop();
        await schema?.drop();
        rmSync(home, { recursive: true, force: true });
      },
      restart: async () => {
        await server.stop();
        server = await start();
      },
      killAndStart: async (whileDown) => {
        process.kill(server.pid, 'SIGKILL');
        await server.stop();
        await whileDown?.();
        server = await start();
      },
    },
  );
  return { controller, ctrlEndpoint: `tls:${address}:${ctrlPort}` };
}

export function managed(
  kind: ControllerKind,
  pid: () => number,
  logFile: string,
  caFile: string,
  base: string,
  life: {
    stop(): Promise<void>;
    restart(): Promise<void>;
    killAndStart?(whileDown?: () => Promise<void>): Promise<void>;
  },
): NetworkController {
  let token = '';
  const call = async (method: string, path: string, body?: unknown) => {
    const reply = await httpsRequest(`${base}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(token ? { 'zt-session': token } : {}) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      timeoutMs: 30_000,
    });
    return { status: reply.status, data: (reply.body as { data?: Record<string, unknown> } | undefined)?.data ?? {} };
  };
  const login = async () => {
    token = '';
    token = String(
      (
        await call('POST', '/edge/management/v1/authenticate?method=password', {
          username: ADMIN_USERNAME,
          password: ADMIN_PASSWORD,
        })
      ).data.token,
    );
  };
  const authenticated = async (method: string, path: string, body?: unknown) => {
    if (!token) await login();
    let reply = await call(method, path, body);
    if (reply.status === 401) {
      await login();
      reply = await call(method, path, body);
    }
    return reply;
  };
  return {
    kind,
    pid,
    logFile,
    caFile,
    baseUrl: base,
    api: (method, path, body) => authenticated(method, `/edge/management/v1${path}`, body),
    fabric: (method, path, body) => authenticated(method, `/fabric/v1${path}`, body),
    stop: () => life.stop(),
    restart: async () => {
      await life.restart();
      token = '';
    },
    killAndStart: async (whileDown) => {
      if (!life.killAndStart) throw new Error(`killing the ${kind} controller is not supported here`);
      await life.killAndStart(whileDown);
      token = '';
    },
  };
}

/** Creates an entity and returns its id, or throws with the controller's answer. */
export async function create(controller: NetworkController, path: string, body: unknown): Promise<string> {
  const reply = await controller.api('POST', path, body);
  if (reply.status !== 201)
    throw new Error(`POST ${path} answered ${reply.status}: ${JSON.stringify(reply.data).slice(0, 400)}`);
  return String(reply.data.id);
}

/** Polls `probe` until it gives a value; `what` (a function for text read at the time out) names it in the error. */
export async function until<T>(
  what: string | (() => string),
  probe: () => Promise<T | undefined | false>,
  timeoutMs = 60_000,
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'string' ? what : what()}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

export function runZiti(binary: string, args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { cwd, env: zitiEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

/** A long-running upstream program whose output is kept (for waiting on a line, and for failure messages). */
export class Program {
  readonly child: ChildProcess;
  log = '';
  constructor(binary: string, args: string[], cwd: string) {
    this.child = spawn(binary, args, { cwd, env: zitiEnv(), stdio: ['pipe', 'pipe', 'pipe'] }); // stdin open: sample-host exits at its end
    this.child.stdout!.on('data', (chunk: Buffer) => (this.log += chunk.toString()));
    this.child.stderr!.on('data', (chunk: Buffer) => (this.log += chunk.toString()));
  }
  /** SIGKILL: the process gets no chance to close its channels (a crash, as the controller and its peers see it). */
  kill(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return Promise.resolve();
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.kill('SIGKILL');
    return exited;
  }
  stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return Promise.resolve();
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
    return exited.finally(() => clearTimeout(timer));
  }
}

export interface RouterOptions {
  name?: string;
  /** An edge listener (the default); false makes a transit router (fabric only, created under `/transit-routers`). */
  edge?: boolean;
  /** A link listener in these link groups (absent: the router only dials links, to routers that listen). */
  linkGroups?: string[];
  /** The link groups its dialer belongs to (default: upstream's `default`). */
  dialerGroups?: string[];
  roleAttributes?: string[];
  /** The router's `metrics.reportInterval` (upstream's default: 1m). */
  metricsReportInterval?: string;
  /** `binding: proxy` listeners: a loopback port joined to a service by the controller's CircuitRequest answer. */
  proxies?: ProxyListener[];
}

/** Creates, enrolls and runs a router in its own folder under `work`; resolves once the controller shows it connected. */
export async function startRouter(
  binary: string,
  controller: NetworkController,
  ctrlEndpoint: string,
  work: string,
  options: RouterOptions = {},
) {
  const { name = 'interop-router', edge = true } = options;
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  const collection = edge ? '/edge-routers' : '/transit-routers';
  const routerId = await create(
    controller,
    collection,
    edge ? { name, isTunnelerEnabled: false, roleAttributes: options.roleAttributes ?? [] } : { name },
  );
  const details = await controller.api('GET', `${collection}/${routerId}`);
  writeFileSync(join(dir, 'router.jwt'), String(details.data.enrollmentJwt));
  const linkPort = options.linkGroups ? await freePort() : undefined;
  const link = {
    ...(linkPort === undefined ? {} : { port: linkPort, groups: options.linkGroups }),
    ...(options.dialerGroups ? { dialerGroups: options.dialerGroups } : {}),
  };
  const config = routerConfig(dir, ctrlEndpoint, edge ? await freePort() : undefined, link, options.proxies);
  const metrics = options.metricsReportInterval ? `metrics:\n  reportInterval: ${options.metricsReportInterval}\n` : '';
  writeFileSync(join(dir, 'router.yml'), config + metrics);
  const enroll = await runZiti(
    binary,
    ['router', 'enroll', join(dir, 'router.yml'), '--jwt', join(dir, 'router.jwt')],
    dir,
  );
  if (enroll.code !== 0) throw new Error(`router enroll of ${name} failed: ${enroll.output}`);
  const run = () => new Program(binary, ['router', 'run', join(dir, 'router.yml')], dir);
  const connected = async () => (await controller.fabric('GET', `/routers/${routerId}`)).data.connected === true;
  const router = {
    routerId,
    name,
    program: run(),
    connected,
    restart: async () => {
      await router.program.stop();
      router.program = run();
    },
  };
  await until(() => `${name} connected\n${router.program.log.slice(-2000)}`, connected);
  return router;
}

export type Router = Awaited<ReturnType<typeof startRouter>>;

/** Creates a device identity and enrolls it (`ziti edge enroll`): the path of its identity file. */
export async function enrolledIdentity(
  binary: string,
  controller: NetworkController,
  name: string,
  work: string,
): Promise<{ id: string; file: string }> {
  const id = await create(controller, '/identities', {
    name,
    type: 'Device',
    isAdmin: false,
    enrollment: { ott: true },
  });
  const details = await controller.api('GET', `/identities/${id}`);
  const jwt = (details.data.enrollment as { ott?: { jwt?: string } }).ott?.jwt;
  if (!jwt) throw new Error(`no enrollment JWT for ${name}: ${JSON.stringify(details.data).slice(0, 300)}`);
  const jwtFile = join(work, `${name}.jwt`);
  const file = join(work, `${name}.json`);
  writeFileSync(jwtFile, jwt);
  const enroll = await runZiti(binary, ['edge', 'enroll', '--jwt', jwtFile, '--out', file], work);
  if (enroll.code !== 0) throw new Error(`edge enroll of ${name} failed: ${enroll.output}`);
  return { id, file };
}

/** A service with Bind for `host`, Dial for `client`, and every identity and service allowed on every router. */
export async function echoService(
  controller: NetworkController,
  name: string,
  hostId: string,
  clientId: string,
  encryptionRequired = true,
): Promise<string> {
  const serviceId = await create(controller, '/services', { name, encryptionRequired });
  await grant(controller, 'Bind', serviceId, [hostId], `${name}-bind`);
  await grant(controller, 'Dial', serviceId, [clientId], `${name}-dial`);
  return serviceId;
}

/** A service policy of `type` giving these identities (by id) the service; its id. */
export function grant(
  controller: NetworkController,
  type: 'Bind' | 'Dial',
  serviceId: string,
  identityIds: string[],
  name: string,
): Promise<string> {
  return create(controller, '/service-policies', {
    name,
    type,
    semantic: 'AnyOf',
    identityRoles: identityIds.map((id) => `@${id}`),
    serviceRoles: [`@${serviceId}`],
  });
}

export async function openPolicies(controller: NetworkController): Promise<void> {
  await create(controller, '/edge-router-policies', {
    name: 'all-routers',
    semantic: 'AnyOf',
    identityRoles: ['#all'],
    edgeRouterRoles: ['#all'],
  });
  await create(controller, '/service-edge-router-policies', {
    name: 'all-services',
    semantic: 'AnyOf',
    serviceRoles: ['#all'],
    edgeRouterRoles: ['#all'],
  });
}

/** The terminators of a service that the controller lists. */
export async function terminators(
  controller: NetworkController,
  serviceId: string,
): Promise<Record<string, unknown>[]> {
  const reply = await controller.api('GET', `/terminators?filter=${encodeURIComponent(`service="${serviceId}"`)}`);
  return (reply.data as unknown as Record<string, unknown>[]) ?? [];
}

/** `ziti demo echo-server` binding `service`; resolves once the service has a terminator other than `previous`. */
export async function startEchoServer(
  binary: string,
  controller: NetworkController,
  identityFile: string,
  service: string,
  serviceId: string,
  work: string,
  previous: string[] = [],
) {
  const program = new Program(
    binary,
    ['demo', 'echo-server', '-i', identityFile, '-s', service, '--cli-agent=false'],
    work,
  );
  const terminator = await until(
    `a terminator of ${service}\n${program.log.slice(-2000)}`,
    async () => {
      const list = await terminators(controller, serviceId);
      return list.find((entry) => !previous.includes(String(entry.id)));
    },
    30_000,
  );
  return { program, terminatorId: String(terminator.id) };
}

/** One `ziti demo zcat` dial: writes `input`, closes its side, and gathers what comes back until the echo server closes. */
export function zcat(
  binary: string,
  identityFile: string,
  service: string,
  input: Buffer,
  cwd: string,
  timeoutMs = 60_000,
  flags: string[] = [],
) {
  return pipeThrough(binary, ['demo', 'zcat', ...flags, '-i', identityFile, `ziti:${service}`], input, cwd, timeoutMs);
}

/** Runs a program with `input` on its stdin (then closed) and gathers its stdout until it exits. */
export function pipeThrough(
  command: string,
  args: string[],
  input: Buffer,
  cwd: string,
  timeoutMs = 60_000,
  env: Record<string, string> = {},
): Promise<{ code: number | null; signal: NodeJS.Signals | null; output: Buffer; log: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { cwd, env: zitiEnv(env), stdio: ['pipe', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    let log = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, output: Buffer.concat(chunks), log, ms: performance.now() - started });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
  });
}

export const tempDir = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));
export const readLog = (file: string) => readFileSync(file, 'utf8');
