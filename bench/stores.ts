// `npm run bench:stores -- [--stores sqlite,postgres,postgres2,upstream] [--quick]` (issue 26): the same scenarios,
// in one run on one machine, on ours with SQLite, ours on PostgreSQL with one instance, ours on PostgreSQL with two
// instances on the same database (the load's connections spread evenly over both), and upstream v1.1.8: the
// first-read identity lists at the small and the large seed, current-identity and password login at the small
// seed, and at the large seed session creates (Dial) of a typical and a heavy identity and posture-response-bulk.
// PostgreSQL runs in a database the run creates on BENCH_DATABASE_URL's (or ZITI_TEST_DATABASE_URL's) server and
// drops at the end. The table (rate and p99 per store, PG-1 ÷ upstream, PG-2 ÷ PG-1, SQLite ÷ the figures issue 26
// started from) goes to stdout, the figures to bench/results/stores-*.json. Method and results: docs/benchmarks.md.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startUpstream, UpstreamUnavailable } from '../scripts/upstream.js';
import { databaseUrlFor, shareStore } from './bench-store.js';
import { installSignalCleanup, isInterrupted, onCleanup, runCleanup } from './cleanup.js';
import { ADMIN_PASSWORD, ADMIN_USERNAME, startController } from './controller-process.js';
import { loginAdmin } from './https-client.js';
import type { ScenarioResult } from './report.js';
import { runScenario, ROOT } from './scenario-run.js';
import * as scenarios from './scenarios.js';
import type { Scenario } from './scenarios.js';
import { seedIdentities } from './seed-identities.js';
import { databaseBackendsCpu, freePort, readCpuSeconds, readRssMb, type ServerProcess } from './server-process.js';
import { closeModelConnections } from './session-model.js';
import { loadSessionScenarios, prepareSessionScenarios } from './session-phase.js';
import { say, settings } from './settings.js';
import {
  formatStoresReport,
  STORES,
  storesGoals,
  writeStoresResults,
  type StoreName,
  type StoresRun,
} from './stores-report.js';
import { apiSeeder, seedUpstreamIdentities } from './upstream-seed.js';

/** The session scenarios of issue 26's table (the posture-checked variants are the sessions phase's). */
const SESSION_KEYS = new Set(['session-create-typical', 'session-create-heavy', 'posture-response-bulk']);

function parseArguments(argv: string[]): { stores: StoreName[]; quick: boolean } {
  const at = argv.indexOf('--stores');
  const asked = at >= 0 ? (argv[at + 1] ?? '').split(',').map((name) => name.trim()) : [...STORES];
  const unknown = asked.filter((name) => !(STORES as readonly string[]).includes(name));
  if (unknown.length > 0 || asked.length === 0)
    throw new Error(`--stores takes a comma-separated list of ${STORES.join(', ')}; got "${asked.join(',')}"`);
  return { stores: STORES.filter((name) => asked.includes(name)), quick: argv.includes('--quick') };
}

/** Several instances as one server to load: their URLs in turn, their CPU and memory added up. */
function asOne(instances: ServerProcess[]): ServerProcess {
  const [first] = instances;
  if (!first) throw new Error('no instance to load');
  if (instances.length === 1) return first;
  const sum = (read: (one: ServerProcess) => number) => () => instances.reduce((total, one) => total + read(one), 0);
  return {
    name: `${instances.length} instances`,
    pid: first.pid,
    baseUrl: first.baseUrl,
    baseUrls: instances.map((one) => one.baseUrl),
    rssMb: sum((one) => one.rssMb()),
    peakRssMb: sum((one) => one.peakRssMb()),
    cpuSeconds: sum((one) => one.cpuSeconds()),
    stop: async () => void (await Promise.all(instances.map((one) => one.stop()))),
  };
}

function withDatabaseCpu(server: ServerProcess, databaseCpu: (() => number) | undefined): ServerProcess {
  return databaseCpu ? { ...server, cpuSeconds: () => server.cpuSeconds() + databaseCpu() } : server;
}

type Load = (server: ServerProcess, token: string) => Promise<ScenarioResult[]>;

/** What every store is loaded with at the small seed, and at the large one (the sessions model made first). */
function platformLoads(dir: string, target: Scenario['target']): { small: Load; large: Load } {
  const run = async (list: Scenario[], server: ServerProcess, token: string, identities: number) => {
    const results: ScenarioResult[] = [];
    for (const scenario of list) results.push(await runScenario({ ...scenario, target }, server, token, identities));
    return results;
  };
  const { smallSeed, largeSeed } = settings;
  return {
    small: (server, token) =>
      run(
        [
          scenarios.listByNameEach(dir, smallSeed),
          scenarios.currentIdentity,
          scenarios.passwordLogin(ADMIN_USERNAME, ADMIN_PASSWORD),
        ],
        server,
        token,
        smallSeed,
      ),
    large: async (server, token) => {
      const lists = await run([scenarios.listByNameEach(dir, largeSeed)], server, token, largeSeed);
      say(`sessions model at ${largeSeed} identities…`);
      const prepared = await prepareSessionScenarios(server.baseUrl, token, dir, target, true);
      try {
        return [
          ...lists,
          ...(await loadSessionScenarios(
            prepared.filter(([scenario]) => SESSION_KEYS.has(scenario.key)),
            server,
            largeSeed,
          )),
        ];
      } finally {
        closeModelConnections();
      }
    },
  };
}

/** Ours on one store, with `instances` controllers on its data (each its own home and port). */
async function measureOurs(store: 'sqlite' | 'postgres', instances: number): Promise<ScenarioResult[]> {
  settings.store = store;
  const homes = Array.from({ length: instances }, () => mkdtempSync(join(tmpdir(), `ziti-bench-${store}-`)));
  onCleanup(() => homes.forEach((home) => rmSync(home, { recursive: true, force: true })));
  const ports = await Promise.all(homes.map(() => freePort()));
  const [home, ...others] = homes;
  if (!home) throw new Error('no instance to measure');
  // The first start creates the schema the seeder writes into; the other instances share its data.
  await (await startController(home, ports[0] ?? 0)).stop();
  for (const other of others) shareStore(other, home);
  const loads = platformLoads(home, 'controller');
  // On PostgreSQL a request's CPU is the controller's and its database backends' together (SQLite's is in-process).
  const url = await databaseUrlFor(home);
  const databaseCpu = url === undefined ? undefined : databaseBackendsCpu(new URL(url).pathname.slice(1));
  const within = async (load: Load) => {
    const started: ServerProcess[] = [];
    try {
      for (const [index, one] of homes.entries()) started.push(await startController(one, ports[index] ?? 0));
      const server = withDatabaseCpu(asOne(started), databaseCpu);
      return await load(server, await loginAdmin(server.baseUrl, ADMIN_USERNAME, ADMIN_PASSWORD));
    } finally {
      await Promise.all(started.map((one) => one.stop()));
    }
  };
  const seed = async (from: number, to: number) =>
    void (await seedIdentities(home, from, to, (done) => say(`seeded ${done}/${to}`)));
  await seed(0, settings.smallSeed);
  const small = await within(loads.small);
  await seed(settings.smallSeed, settings.largeSeed);
  return [...small, ...(await within(loads.large))];
}

async function measureUpstream(): Promise<ScenarioResult[] | string> {
  let upstream;
  try {
    upstream = await startUpstream({ username: ADMIN_USERNAME, password: ADMIN_PASSWORD });
  } catch (error) {
    if (error instanceof UpstreamUnavailable) return error.message;
    throw error;
  }
  const { pid } = upstream;
  const server: ServerProcess = {
    name: 'upstream',
    pid,
    baseUrl: upstream.baseUrl,
    rssMb: () => readRssMb(pid),
    peakRssMb: () => readRssMb(pid, 'VmHWM'),
    cpuSeconds: () => readCpuSeconds(pid),
    stop: () => upstream.stop(),
  };
  const dir = mkdtempSync(join(tmpdir(), 'ziti-bench-upstream-'));
  onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  const token = await loginAdmin(server.baseUrl, ADMIN_USERNAME, ADMIN_PASSWORD);
  const seeder = apiSeeder(server.baseUrl, token);
  try {
    const loads = platformLoads(dir, 'upstream');
    say(`seeding upstream with ${settings.smallSeed} identities through its API…`);
    await seedUpstreamIdentities(seeder, 0, settings.smallSeed, false);
    const small = await loads.small(server, token);
    say(`seeding upstream up to ${settings.largeSeed} identities…`);
    await seedUpstreamIdentities(seeder, settings.smallSeed, settings.largeSeed, false);
    return [...small, ...(await loads.large(server, token))];
  } finally {
    seeder.close();
    await server.stop();
  }
}

async function main(): Promise<void> {
  installSignalCleanup();
  const { stores, quick } = parseArguments(process.argv.slice(2));
  // Issue 26's seeds: 1k and 5k identities (the general bench's large seed is 100k).
  if (!process.env.BENCH_LARGE_SEED) settings.largeSeed = 5_000;
  if (quick) Object.assign(settings, { durationSeconds: 5, warmupSeconds: 2 });
  const run: StoresRun = {
    startedAt: new Date().toISOString(),
    quick,
    settings: { ...settings },
    stores: {},
    skipped: {},
  };
  for (const store of stores) {
    say(`\n=== ${store} ===`);
    if (store === 'upstream') {
      const measured = await measureUpstream();
      if (typeof measured === 'string') run.skipped[store] = measured;
      else run.stores[store] = measured;
    } else
      run.stores[store] = await measureOurs(store === 'sqlite' ? 'sqlite' : 'postgres', store === 'postgres2' ? 2 : 1);
  }
  run.finishedAt = new Date().toISOString();
  run.goals = storesGoals(run);
  process.stdout.write(`\n${formatStoresReport(run)}\n`);
  process.stdout.write(`\nresults: ${writeStoresResults(run, join(ROOT, 'bench', 'results'))}\n`);
}

try {
  await main();
} catch (error) {
  if (!isInterrupted()) say(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exitCode = 1;
} finally {
  await runCleanup();
}
