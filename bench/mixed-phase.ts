// The mixed phase (BENCH_PHASES=mixed): ~200 clients doing what SDKs and admins do at once (bench/mixed-load.ts)
// while a probe opens a fresh TLS connection every PROBE_INTERVAL_MS and times its handshake. Issue 21 saw a new
// client wait 30–60 s for its handshake under such a load; the goal is 1 s at p99.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { runBenchChild } from './load.js';
import { ADMIN_PASSWORD, ADMIN_USERNAME, startController } from './controller-process.js';
import { httpsRequest, loginAdmin } from './https-client.js';
import type { Goal } from './report.js';
import { ROOT } from './scenario-run.js';
import { freePort } from './server-process.js';
import { say, settings } from './settings.js';

export const MIXED_SPEC_VARIABLE = 'BENCH_MIXED_SPEC';

export interface MixedLoadSpec {
  baseUrl: string;
  sdkClients: number;
  adminClients: number;
  /** SDK users to log in as (round robin); each has `password`. */
  usernames: string[];
  password: string;
  adminToken: string;
  durationSeconds: number;
  /** Polls an SDK makes on one API session before it logs in again on a new connection. */
  pollsPerLogin: number;
}

export interface MixedLoadFigures {
  requests: Record<string, { ok: number; failed: number }>;
  seconds: number;
}

const SDK_USERS = 20;
const SERVICES = 20;
const SDK_PASSWORD = 'Mixed-Bench-Password-1!';
const PROBE_INTERVAL_MS = 200;
const PROBE_TIMEOUT_MS = 60_000;
const HANDSHAKE_P99_MS = 1_000;

export interface HandshakeFigures {
  count: number;
  /** Handshakes that did not finish within PROBE_TIMEOUT_MS or failed (counted as the timeout in the percentiles). */
  failed: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export interface MixedResult {
  sdkClients: number;
  adminClients: number;
  load: MixedLoadFigures;
  handshakes: HandshakeFigures;
  /** The same probe with no load, for comparison. */
  idleHandshakes: HandshakeFigures;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

function handshake(port: number): Promise<number | undefined> {
  const started = performance.now();
  return new Promise((resolve) => {
    const socket = tls.connect({ host: '127.0.0.1', port, servername: 'localhost', rejectUnauthorized: false }, () => {
      resolve(performance.now() - started);
      socket.destroy();
    });
    socket.setTimeout(PROBE_TIMEOUT_MS, () => socket.destroy());
    socket.once('error', () => resolve(undefined));
    socket.once('close', () => resolve(undefined));
  });
}

/** Starts a handshake every PROBE_INTERVAL_MS until `until` settles, then waits for the last ones. */
async function probeHandshakes(port: number, until: Promise<unknown>): Promise<HandshakeFigures> {
  const probes: Promise<number | undefined>[] = [];
  let done = false;
  void until.finally(() => (done = true));
  while (!done) {
    probes.push(handshake(port));
    await new Promise((resolve) => setTimeout(resolve, PROBE_INTERVAL_MS));
  }
  const times = await Promise.all(probes);
  const sorted = times.map((ms) => ms ?? PROBE_TIMEOUT_MS).sort((a, b) => a - b);
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return {
    count: times.length,
    failed: times.filter((ms) => ms === undefined).length,
    p50Ms: round(percentile(sorted, 50)),
    p99Ms: round(percentile(sorted, 99)),
    maxMs: round(sorted.at(-1) ?? 0),
  };
}

async function seed(baseUrl: string, token: string): Promise<string[]> {
  const post = async (path: string, body: unknown) => {
    const reply = await httpsRequest(`${baseUrl}/edge/management/v1/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'zt-session': token },
      body: JSON.stringify(body),
    });
    if (reply.status !== 201)
      throw new Error(`POST ${path} answered ${reply.status}: ${JSON.stringify(reply.body).slice(0, 200)}`);
    return (reply.body as { data: { id: string } }).data.id;
  };
  const usernames: string[] = [];
  for (let i = 0; i < SDK_USERS; i++) {
    const identityId = await post('identities', {
      name: `mixed-sdk-${i}`,
      type: 'User',
      isAdmin: false,
      roleAttributes: ['sdk'],
    });
    await post('authenticators', {
      method: 'updb',
      identityId,
      username: `mixed-sdk-user-${i}`,
      password: SDK_PASSWORD,
    });
    usernames.push(`mixed-sdk-user-${i}`);
  }
  for (let i = 0; i < SERVICES; i++)
    await post('services', { name: `mixed-service-${i}`, encryptionRequired: true, roleAttributes: ['mixed'] });
  await post('service-policies', {
    name: 'mixed-dial',
    type: 'Dial',
    semantic: 'AnyOf',
    identityRoles: ['#sdk'],
    serviceRoles: ['#mixed'],
  });
  return usernames;
}

function runClients(spec: MixedLoadSpec): Promise<MixedLoadFigures> {
  return runBenchChild<MixedLoadFigures>('bench/mixed-load.ts', MIXED_SPEC_VARIABLE, spec, ROOT, 'mixed load');
}

/** In a home of its own: its users, services and logins would change what other phases measure. */
export async function runMixedPhase(): Promise<MixedResult> {
  const home = mkdtempSync(join(tmpdir(), 'ziti-bench-mixed-'));
  const controller = await startController(home, await freePort());
  try {
    const port = Number(new URL(controller.baseUrl).port);
    const adminToken = await loginAdmin(controller.baseUrl, ADMIN_USERNAME, ADMIN_PASSWORD);
    const usernames = await seed(controller.baseUrl, adminToken);
    const idleHandshakes = await probeHandshakes(port, new Promise((resolve) => setTimeout(resolve, 2_000)));
    const sdkClients = settings.mixedClients - settings.mixedAdmins;
    say(
      `mixed: ${sdkClients} SDK clients and ${settings.mixedAdmins} admins for ${settings.mixedSeconds} s, a new TLS connection every ${PROBE_INTERVAL_MS} ms…`,
    );
    const spec: MixedLoadSpec = {
      baseUrl: controller.baseUrl,
      sdkClients,
      adminClients: settings.mixedAdmins,
      usernames,
      password: SDK_PASSWORD,
      adminToken,
      durationSeconds: settings.mixedSeconds,
      pollsPerLogin: 30,
    };
    const clients = runClients(spec);
    // The probe starts once the clients are connecting, and stops as they do.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const handshakes = await probeHandshakes(port, clients);
    const load = await clients;
    const result = { sdkClients, adminClients: settings.mixedAdmins, load, handshakes, idleHandshakes };
    say(`  ${formatMixed(result).join('\n  ')}`);
    return result;
  } finally {
    await controller.stop();
    rmSync(home, { recursive: true, force: true });
  }
}

export function evaluateMixedGoal(result: MixedResult): Goal {
  const { handshakes } = result;
  return {
    goal: `new connection's TLS handshake under the mixed load, p99 ≤ ${HANDSHAKE_P99_MS} ms`,
    measured: handshakes.p99Ms,
    verdict: handshakes.p99Ms <= HANDSHAKE_P99_MS && handshakes.failed === 0 ? 'pass' : 'miss',
    note: `${handshakes.count} handshakes, p50 ${handshakes.p50Ms} ms, max ${handshakes.maxMs} ms, ${handshakes.failed} failed; idle p99 ${result.idleHandshakes.p99Ms} ms`,
  };
}

export function formatMixed(result: MixedResult): string[] {
  const { handshakes: h, idleHandshakes: idle, load } = result;
  const perSecond = (n: number) => (n / load.seconds).toFixed(1);
  return [
    `mixed load: ${result.sdkClients} SDK clients + ${result.adminClients} admins, ${load.seconds.toFixed(0)} s; new TLS handshakes: p50 ${h.p50Ms} ms, p99 ${h.p99Ms} ms, max ${h.maxMs} ms, ${h.failed}/${h.count} failed (idle: p50 ${idle.p50Ms} ms, p99 ${idle.p99Ms} ms)`,
    ...Object.entries(load.requests).map(
      ([kind, tally]) => `  ${kind}: ${perSecond(tally.ok)}/s${tally.failed ? `, ${tally.failed} failed` : ''}`,
    ),
  ];
}
