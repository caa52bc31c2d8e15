// `npm run bench`: starts the controller and a bare hello server in child processes, loads each with autocannon
// from another child, seeds identities between phases, and reports rates against the ceiling and the goals.
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installSignalCleanup, isInterrupted, onCleanup, runCleanup } from './cleanup.js';
import { measureHashRate } from './hash-rate.js';
import { errorCode, httpsRequest, loginAdmin, totalCount } from './https-client.js';
import { runLoad } from './load.js';
import { evaluateGoals, formatReport, writeResults, type BenchRun, type ScenarioResult } from './report.js';
import * as scenarios from './scenarios.js';
import { requestHeaders, type Scenario } from './scenarios.js';
import { seedIdentities } from './seed-identities.js';
import { freePort, readMachineBusySeconds, startServer, type ServerProcess } from './server-process.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const USERNAME = 'admin';
const PASSWORD = 'Bench-Admin-Password-1!';

const settings = {
  durationSeconds: numberFromEnv('BENCH_DURATION', 10),
  warmupSeconds: numberFromEnv('BENCH_WARMUP', 2),
  // Two cores shared by server and load generator: 10 connections reach the same req/s as 50 on every scenario
  // here, and p50/p99 then show service time rather than 50-deep queues.
  connections: numberFromEnv('BENCH_CONNECTIONS', 10),
  smallSeed: numberFromEnv('BENCH_SMALL_SEED', 1_000),
  largeSeed: numberFromEnv('BENCH_LARGE_SEED', 100_000),
  hashSeconds: numberFromEnv('BENCH_HASH_SECONDS', 3),
};

function numberFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a non-negative number, got "${raw}"`);
  return value;
}

function say(line: string): void {
  process.stderr.write(`${line}\n`);
}

interface Servers {
  controller: ServerProcess;
  hello?: ServerProcess;
  token: string;
}

async function startController(home: string, port: number): Promise<ServerProcess> {
  const started = performance.now();
  const args = ['src/main.ts', '--home', home, '--port', String(port), '--bind', '127.0.0.1'];
  args.push('--password', PASSWORD, '--log-level', 'warn');
  const readyPath = '/edge/client/v1/version';
  const controller = await startServer({ name: 'controller', args, port, readyPath, cwd: ROOT });
  say(`controller ready in ${((performance.now() - started) / 1000).toFixed(1)} s (pid ${controller.pid})`);
  return controller;
}

async function runScenario(scenario: Scenario, servers: Servers, identities: number): Promise<ScenarioResult> {
  const server = scenario.target === 'hello' ? servers.hello! : servers.controller;
  const url = `${server.baseUrl}${scenario.path}`;
  const headers = requestHeaders(scenario, servers.token);
  const body = scenario.body === undefined ? {} : { body: scenario.body };
  const probe = await httpsRequest(url, { method: scenario.method, headers, ...body });
  const code = errorCode(probe.body);
  const matches = totalCount(probe.body);
  const where = scenario.target === 'hello' ? 'hello server' : `${identities} identities`;
  say(`${scenario.key} (${where}): probe ${probe.status}${code ? ` ${code}` : ''}, loading ${settings.durationSeconds} s…`);
  const cpuBefore = server.cpuSeconds();
  const machineBefore = readMachineBusySeconds();
  const wallBefore = performance.now();
  const { connections, durationSeconds, warmupSeconds } = settings;
  const load = await runLoad({ url, method: scenario.method, headers, ...body, connections, durationSeconds, warmupSeconds }, ROOT);
  const rssMb = server.rssMb();
  const serverCpu = server.cpuSeconds() - cpuBefore;
  const cpuMsPerRequest = (serverCpu * 1000) / Math.max(1, load.totalRequests + load.warmupRequests);
  // Whatever else kept the cores busy (other people's tests on a shared machine) skews req/s far more than CPU/request.
  const otherBusy = readMachineBusySeconds() - machineBefore - serverCpu - load.loadCpuSeconds;
  const otherCores = Math.max(0, otherBusy / ((performance.now() - wallBefore) / 1000));
  say(
    `  ${load.requestsPerSecond.toFixed(0)} req/s, p50 ${load.latencyP50Ms} ms, p99 ${load.latencyP99Ms} ms, ` +
      `non-2xx ${load.non2xx}, server CPU ${cpuMsPerRequest.toFixed(3)} ms/req, RSS ${rssMb.toFixed(0)} MB, ` +
      `other load ${otherCores.toFixed(2)} cores`,
  );
  return {
    key: scenario.key,
    target: scenario.target,
    identities: scenario.target === 'hello' ? 0 : identities,
    method: scenario.method,
    path: scenario.path,
    probe: { status: probe.status, ...(code ? { errorCode: code } : {}), ...(matches === undefined ? {} : { totalCount: matches }) },
    load,
    cpuMsPerRequest,
    otherCores,
    rssMb,
  };
}

function machineFacts(): BenchRun['machine'] {
  const totalMemoryMb = Math.round(totalmem() / 2 ** 20);
  return { cpus: availableParallelism(), cpuModel: cpus()[0]?.model ?? 'unknown', node: process.version, totalMemoryMb };
}

function seed(home: string, from: number, to: number, log: BenchRun['seeding']): void {
  const ms = seedIdentities(join(home, 'ctrl.db'), from, to, (done) => say(`seeded ${done}/${to}`));
  log.push({ from, to, ms });
}

interface Phase {
  home: string;
  port: number;
  /** Identities seeded in total before this phase. */
  identities: number;
  scenarios: Scenario[];
  /** Also start the hello server, for the ceiling. */
  withHello: boolean;
}

/** One controller lifetime: start, log in, run the scenarios, stop. Lists come first in every phase, each right
 * after a restart, so that the 1k and the 100k figures start from the same state. */
async function runPhase(phase: Phase, run: Pick<BenchRun, 'controllerRssMb' | 'scenarios'>): Promise<void> {
  const servers: Servers = { controller: await startController(phase.home, phase.port), token: '' };
  run.controllerRssMb.push({ when: `idle, ${phase.identities} identities`, rssMb: servers.controller.rssMb() });
  try {
    if (phase.withHello) {
      const helloPort = await freePort();
      const args = ['bench/hello-server.ts', join(phase.home, 'pki'), String(helloPort)];
      servers.hello = await startServer({ name: 'hello server', args, port: helloPort, readyPath: '/hello', cwd: ROOT });
    }
    servers.token = await loginAdmin(servers.controller.baseUrl, USERNAME, PASSWORD);
    for (const scenario of phase.scenarios) run.scenarios.push(await runScenario(scenario, servers, phase.identities));
  } finally {
    await servers.hello?.stop();
    await servers.controller.stop();
  }
}

async function main(): Promise<void> {
  installSignalCleanup();
  const startedAt = new Date().toISOString();
  const home = mkdtempSync(join(tmpdir(), 'ziti-bench-'));
  onCleanup(() => rmSync(home, { recursive: true, force: true }));
  const port = await freePort();
  const { smallSeed, largeSeed } = settings;
  const run: Pick<BenchRun, 'seeding' | 'controllerRssMb' | 'scenarios'> = { seeding: [], controllerRssMb: [], scenarios: [] };

  // Before any server starts, so the hash rate has every core to itself.
  say(`measuring the raw argon2id hash rate (${settings.hashSeconds} s)…`);
  const hashRate = await measureHashRate(settings.hashSeconds);
  say(`  ${hashRate.hashesPerSecond.toFixed(0)} hashes/s`);

  // The first start creates the database, PKI and admin; the seeder needs the schema in place.
  await (await startController(home, port)).stop();
  seed(home, 0, smallSeed, run.seeding);
  const lists = [scenarios.listByName, scenarios.listByAttribute];
  const others = [scenarios.ceiling, scenarios.currentIdentity, scenarios.passwordLogin(USERNAME, PASSWORD)];
  await runPhase({ home, port, identities: smallSeed, scenarios: [...lists, ...others], withHello: true }, run);
  seed(home, smallSeed, largeSeed, run.seeding);
  await runPhase({ home, port, identities: largeSeed, scenarios: lists, withHello: false }, run);

  const report: BenchRun = {
    startedAt,
    finishedAt: new Date().toISOString(),
    machine: machineFacts(),
    settings,
    hashRate,
    ...run,
    goals: evaluateGoals(run.scenarios, hashRate, smallSeed, largeSeed),
  };
  process.stdout.write(`\n${formatReport(report)}\n`);
  const file = writeResults(report, join(ROOT, 'bench', 'results'));
  process.stdout.write(`\nresults: ${file}\n`);
}

try {
  await main();
} catch (error) {
  if (!isInterrupted()) say(`bench failed: ${(error as Error).stack ?? String(error)}`);
  process.exitCode = 1;
} finally {
  await runCleanup();
}
