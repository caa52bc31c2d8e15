// `npm run bench:routers`: BENCH_ROUTERS (default 500) enrolled edge routers connect to the control port at once,
// each over its own TLS connection with the hello a v1.1.8 router sends (test/support/test-router.ts, lean: it keeps
// no message). Reports the time until REST shows every one online, the time until every one has applied the
// controller's full API-session state (the chunk marked isLast in header 1014, every one before it in), the
// controller's CPU for the storm and the sync, its memory per connected router, and the CPU the idle channels'
// heartbeats cost it (upstream's 10 s interval both ways) over BENCH_IDLE_SECONDS (default 30), against the same
// window before the routers came. BENCH_ROUTERS_API_SESSIONS (default 0) API sessions are made first (password
// logins, 8 at a time), so the full sync carries them. BENCH_ROUTERS_TARGETS (default `ours`; `ours,upstream`):
// upstream v1.1.8 is driven alike (its control plane on its API port). BENCH_INSTANCES=2 (with BENCH_STORE=postgres)
// starts a second instance of ours on the same database and sends every other router to it; CPU and memory are then
// both instances' together. A router tries BENCH_ROUTERS_TRIES times (default 5, 1 s apart). Writes
// bench/results/routers-*.json.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { installSignalCleanup, onCleanup } from './cleanup.js';
import { runBench, writeResult } from './results-file.js';
import { shareStore } from './bench-store.js';
import { ADMIN_PASSWORD, ADMIN_USERNAME, startController } from './controller-process.js';
import { httpsRequest, loginAdmin, totalCount } from './https-client.js';
import { createApiSessions, enrollRouters } from './router-setup.js';
import { freePort, type ServerProcess } from './server-process.js';
import { say, settings } from './settings.js';
import { asServer } from './upstream-phase.js';
import { TestRouter, type EnrolledRouter } from '../test/support/test-router.js';
import { startUpstream, UpstreamUnavailable } from '../scripts/upstream.js';

const count = Number(process.env.BENCH_ROUTERS ?? 500);
const idleSeconds = Number(process.env.BENCH_IDLE_SECONDS ?? 30);
const instanceCount = Number(process.env.BENCH_INSTANCES ?? 1);
const apiSessionCount = Number(process.env.BENCH_ROUTERS_API_SESSIONS ?? 0);
const targets = (process.env.BENCH_ROUTERS_TARGETS ?? 'ours').split(',').filter(Boolean);
/** Connection attempts per router before it counts as refused (a real router never stops trying). */
const tries = Number(process.env.BENCH_ROUTERS_TRIES ?? 5);
/** How long the routers may take to all apply a full sync before the bench reports how many did. */
const SYNC_DEADLINE_MS = 600_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A controller set up for the storm: enrolled routers, the API sessions made, its instances and control ports. */
interface Prepared {
  target: string;
  store: string;
  baseUrl: string;
  instances: ServerProcess[];
  ctrlPorts: number[];
  ca: string;
  routers: EnrolledRouter[];
  /** Ours' JSON logs (refusals are read from them); upstream's are not read. */
  logs: string[];
  apiSessionsPerSecond: number;
}

async function onlineCount(baseUrl: string, token: string): Promise<number> {
  const reply = await httpsRequest(
    `${baseUrl}/edge/management/v1/edge-routers?limit=1&filter=${encodeURIComponent('online = true')}`,
    // The storm and the syncs may keep the API from answering for a while: the poll waits, it does not fail the run.
    { headers: { 'zt-session': token }, timeoutMs: 120_000 },
  );
  return totalCount(reply.body) ?? -1;
}

/** The instances' CPU seconds and RSS together. */
const cpuSecondsOf = (instances: ServerProcess[]) => instances.reduce((sum, one) => sum + one.cpuSeconds(), 0);
const rssMbOf = (instances: ServerProcess[]) => instances.reduce((sum, one) => sum + one.rssMb(), 0);

/** Controller CPU (ms per second of wall time) over `seconds`. */
async function cpuOver(instances: ServerProcess[], seconds: number): Promise<number> {
  const [cpu, wall] = [cpuSecondsOf(instances), performance.now()];
  await sleep(seconds * 1000);
  return ((cpuSecondsOf(instances) - cpu) * 1000) / ((performance.now() - wall) / 1000);
}

/** Routers and API sessions through the API, then a fresh process (the set-up's garbage would blur its memory). */
async function prepareOurs(): Promise<Prepared> {
  const home = mkdtempSync(join(tmpdir(), 'ziti-bench-routers-'));
  onCleanup(() => Promise.resolve(rmSync(home, { recursive: true, force: true })));
  const [apiPort, ctrlPort] = [await freePort(), await freePort()];
  const ctrlArgs = ['--ctrl-port', String(ctrlPort), '--ctrl-bind', '127.0.0.1'];
  const setUp = await startController(home, apiPort, { args: ctrlArgs });
  let routers: EnrolledRouter[];
  let apiSessionsPerSecond = 0;
  try {
    const token = await loginAdmin(setUp.baseUrl, ADMIN_USERNAME, ADMIN_PASSWORD);
    say(`enrolling ${count} edge routers`);
    routers = await enrollRouters(setUp.baseUrl, token, count);
    say(`making ${apiSessionCount} API sessions`);
    apiSessionsPerSecond = await createApiSessions(setUp.baseUrl, ADMIN_USERNAME, ADMIN_PASSWORD, apiSessionCount, 8);
  } finally {
    await setUp.stop();
  }
  const controller = await startController(home, apiPort, {
    args: ctrlArgs,
    stdoutFile: join(home, 'controller.log'),
  });
  const prepared: Prepared = {
    target: 'ours',
    store: settings.store,
    baseUrl: controller.baseUrl,
    instances: [controller],
    ctrlPorts: [ctrlPort],
    ca: readFileSync(join(home, 'pki', 'root-ca.cert.pem'), 'utf8'),
    routers,
    logs: [join(home, 'controller.log')],
    apiSessionsPerSecond,
  };
  if (instanceCount > 1 && settings.store !== 'postgres')
    throw new Error('BENCH_INSTANCES > 1 needs BENCH_STORE=postgres');
  for (let index = 1; index < instanceCount; index += 1) {
    // Another instance on the same database: its own home, API and control ports.
    const other = mkdtempSync(join(tmpdir(), 'ziti-bench-routers-'));
    onCleanup(() => Promise.resolve(rmSync(other, { recursive: true, force: true })));
    shareStore(other, home);
    const [otherApi, otherCtrl] = [await freePort(), await freePort()];
    const args = ['--ctrl-port', String(otherCtrl), '--ctrl-bind', '127.0.0.1'];
    prepared.instances.push(
      await startController(other, otherApi, { args, stdoutFile: join(other, 'controller.log') }),
    );
    prepared.ctrlPorts.push(otherCtrl);
    prepared.logs.push(join(other, 'controller.log'));
  }
  return prepared;
}

/** Upstream v1.1.8 on bolt, set up through its API alike; not restarted (a start makes a fresh home). */
async function prepareUpstream(): Promise<Prepared> {
  if (instanceCount > 1) throw new Error('BENCH_INSTANCES > 1 is for ours on PostgreSQL');
  const upstream = await startUpstream({ username: ADMIN_USERNAME, password: ADMIN_PASSWORD });
  const token = await loginAdmin(upstream.baseUrl, ADMIN_USERNAME, ADMIN_PASSWORD);
  say(`upstream: enrolling ${count} edge routers`);
  const routers = await enrollRouters(upstream.baseUrl, token, count);
  say(`upstream: making ${apiSessionCount} API sessions`);
  const apiSessionsPerSecond = await createApiSessions(
    upstream.baseUrl,
    ADMIN_USERNAME,
    ADMIN_PASSWORD,
    apiSessionCount,
    8,
  );
  return {
    target: 'upstream',
    store: 'bolt',
    baseUrl: upstream.baseUrl,
    instances: [asServer(upstream)],
    ctrlPorts: [upstream.port],
    ca: readFileSync(upstream.caFile, 'utf8'),
    routers,
    logs: [],
    apiSessionsPerSecond,
  };
}

const tally = (values: string[]) =>
  Object.fromEntries([...new Set(values)].map((value) => [value, values.filter((v) => v === value).length]));
const quantile = (sorted: number[], q: number) =>
  Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? -1);

async function storm(prepared: Prepared): Promise<Record<string, unknown>> {
  const { instances, ctrlPorts, routers, ca } = prepared;
  const connected: TestRouter[] = [];
  try {
    const token = await loginAdmin(prepared.baseUrl, ADMIN_USERNAME, ADMIN_PASSWORD);
    say(`${prepared.target}: baseline, controller CPU over ${idleSeconds} s without routers`);
    await sleep(2000);
    const rssBeforeMb = rssMbOf(instances);
    const baselineCpu = await cpuOver(instances, idleSeconds);

    say(`${prepared.target}: ${count} routers connecting at once`);
    const started = performance.now();
    const cpuBefore = cpuSecondsOf(instances);
    // As real routers do, one that fails tries again (after 1 s here; a v1.1.8 router backs off from 1 s too).
    const reasons: string[] = [];
    const attempt = async (router: EnrolledRouter, port: number, tried = 1): Promise<TestRouter> => {
      try {
        return await TestRouter.connect({ port, router, ca, lean: true });
      } catch (error) {
        reasons.push((error as Error).message);
        if (tried >= tries) throw error;
        await sleep(1000);
        return attempt(router, port, tried + 1);
      }
    };
    const results = await Promise.allSettled(
      routers.map((router, index) => attempt(router, ctrlPorts[index % ctrlPorts.length]!)),
    );
    const helloMs = performance.now() - started;
    for (const result of results) if (result.status === 'fulfilled') connected.push(result.value);
    const refused = results.filter((result) => result.status === 'rejected').length;
    const controllerRefusals = prepared.logs
      .flatMap((log) => readFileSync(log, 'utf8').split('\n'))
      .flatMap((line) =>
        line.includes('router connection refused') ? [String((JSON.parse(line) as { reason: string }).reason)] : [],
      );
    while ((await onlineCount(prepared.baseUrl, token)) < connected.length) await sleep(50);
    const allOnlineMs = performance.now() - started;
    // The controller's own CPU for the whole storm: what the machine's other load does not move.
    const stormCpuMs = (cpuSecondsOf(instances) - cpuBefore) * 1000;
    const syncDeadline = performance.now() + SYNC_DEADLINE_MS;
    while (connected.some((router) => router.edge.fullSyncs.length === 0) && performance.now() < syncDeadline)
      await sleep(50);
    const syncCpuMs = (cpuSecondsOf(instances) - cpuBefore) * 1000;
    const firstSyncs = connected.flatMap((router) => router.edge.fullSyncs.slice(0, 1));
    const syncedAt = firstSyncs.map((sync) => sync.at - started).sort((a, b) => a - b);
    const sizes = firstSyncs.map((sync) => sync.sessions);
    const rssSyncedMb = rssMbOf(instances);

    say(`${prepared.target}: idle, controller CPU over ${idleSeconds} s with ${connected.length} routers heartbeating`);
    await sleep(2000);
    const rssAfterMb = rssMbOf(instances);
    const idleCpu = await cpuOver(instances, idleSeconds);
    return {
      target: prepared.target,
      store: prepared.store,
      instances: instances.length,
      routers: count,
      connected: connected.length,
      refused,
      retriedAfter: tally(reasons),
      controllerRefusals: tally(controllerRefusals),
      helloExchangesDoneMs: Math.round(helloMs),
      allOnlineInRestMs: Math.round(allOnlineMs),
      controllerCpuMsPerRouterConnect: Number((stormCpuMs / Math.max(1, connected.length)).toFixed(2)),
      fullSync: {
        apiSessionsMade: apiSessionCount,
        apiSessionsMadePerSecond: prepared.apiSessionsPerSecond,
        routersSynced: firstSyncs.length,
        sessionsPerSync: { min: Math.min(...sizes), max: Math.max(...sizes) },
        syncedSinceStormStartMs: {
          p50: quantile(syncedAt, 0.5),
          p99: quantile(syncedAt, 0.99),
          all: quantile(syncedAt, 1),
        },
        // From the storm's start: the connect and the sync together.
        controllerCpuMsPerRouterConnectAndSync: Number((syncCpuMs / Math.max(1, firstSyncs.length)).toFixed(2)),
        rssMbWhenSynced: rssSyncedMb,
      },
      loadAverage: loadavg()[0],
      controllerRssMb: { before: rssBeforeMb, after: rssAfterMb },
      memoryPerRouterKb: Math.round(((rssAfterMb - rssBeforeMb) * 1024) / Math.max(1, connected.length)),
      controllerCpuMsPerSecond: {
        withoutRouters: Number(baselineCpu.toFixed(2)),
        withRouters: Number(idleCpu.toFixed(2)),
      },
      heartbeatCpuMicrosecondsPerRouterPerSecond: Number(
        (((idleCpu - baselineCpu) * 1000) / Math.max(1, connected.length)).toFixed(2),
      ),
    };
  } finally {
    await Promise.all(connected.map((router) => router.close()));
  }
}

async function main(): Promise<void> {
  installSignalCleanup();
  const startedAt = new Date().toISOString();
  const runs: Record<string, unknown>[] = [];
  for (const target of targets) {
    let prepared: Prepared;
    try {
      if (target === 'ours') prepared = await prepareOurs();
      else if (target === 'upstream') prepared = await prepareUpstream();
      else throw new Error(`BENCH_ROUTERS_TARGETS: unknown target ${target}`);
    } catch (error) {
      if (!(error instanceof UpstreamUnavailable)) throw error;
      say(`upstream not run: ${error.message}`);
      continue;
    }
    try {
      const run = await storm(prepared);
      say(JSON.stringify(run));
      runs.push(run);
    } finally {
      await Promise.all(prepared.instances.map((one) => one.stop()));
    }
  }
  const result = { startedAt, routers: count, apiSessions: apiSessionCount, runs };
  writeResult('routers', startedAt, result);
  const refused = runs.reduce((sum, run) => sum + Number(run.refused), 0);
  if (refused > 0) throw new Error(`${refused} routers were refused`);
}

runBench(main);
