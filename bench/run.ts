// `npm run bench`: starts the controller and a bare hello server in child processes, loads each with autocannon
// from another child, and reports rates against the ceiling and the goals. Five phases, chosen with BENCH_PHASES:
// `platform` (identity lists at 1k and 100k, login, current identity), `flood` (bench/body-flood.ts), `scale`
// (bench/scale-phase.ts), `observability` (the access log's and metrics' cost, bench/observability-phase.ts),
// `sessions` (bench/session-phase.ts) and `mixed` (new TLS handshakes under SDKs' and admins' load, bench/mixed-phase.ts). Then the platform and scale phases against upstream v1.1.8
// (bench/upstream-phase.ts; BENCH_UPSTREAM=0 skips it) for ours ÷ upstream.
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { installSignalCleanup, isInterrupted, onCleanup, runCleanup } from './cleanup.js';
import { evaluateBodyFloodGoals, runBodyFloodPhase } from './body-flood.js';
import { ADMIN_PASSWORD, ADMIN_USERNAME, startController } from './controller-process.js';
import { measureHashRate } from './hash-rate.js';
import { evaluateMixedGoal, runMixedPhase } from './mixed-phase.js';
import { evaluateObservabilityGoal, runObservabilityPhase } from './observability-phase.js';
import { loginAdmin } from './https-client.js';
import { evaluatePlatformGoals, formatReport, writeResults, type BenchRun } from './report.js';
import { runScalePhase } from './scale-phase.js';
import { evaluateScaleGoals } from './scale-report.js';
import { runUpstreamPhase } from './upstream-phase.js';
import { compareWithUpstream, upstreamGoals } from './upstream-report.js';
import * as scenarios from './scenarios.js';
import type { Scenario } from './scenarios.js';
import { ROOT, runScenario } from './scenario-run.js';
import { seedIdentities } from './seed-identities.js';
import { runSessionPhase } from './session-phase.js';
import { freePort, startServer, type ServerProcess } from './server-process.js';
import { say, settings } from './settings.js';

type RunFigures = Pick<
  BenchRun,
  | 'hashRate'
  | 'seeding'
  | 'controllerRssMb'
  | 'scenarios'
  | 'scale'
  | 'observability'
  | 'bodyFlood'
  | 'mixed'
  | 'upstream'
  | 'goals'
>;

function machineFacts(): BenchRun['machine'] {
  const totalMemoryMb = Math.round(totalmem() / 2 ** 20);
  return {
    cpus: availableParallelism(),
    cpuModel: cpus()[0]?.model ?? 'unknown',
    node: process.version,
    totalMemoryMb,
  };
}

async function seed(home: string, from: number, to: number, log: BenchRun['seeding']): Promise<void> {
  const ms = await seedIdentities(home, from, to, (done) => say(`seeded ${done}/${to}`));
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
async function runLoads(phase: Phase, run: RunFigures): Promise<void> {
  const controller = await startController(phase.home, phase.port);
  let hello: ServerProcess | undefined;
  run.controllerRssMb.push({ when: `idle, ${phase.identities} identities`, rssMb: controller.rssMb() });
  try {
    if (phase.withHello) {
      const helloPort = await freePort();
      const args = ['bench/hello-server.ts', join(phase.home, 'pki'), String(helloPort)];
      hello = await startServer({ name: 'hello server', args, port: helloPort, readyPath: '/hello', cwd: ROOT });
    }
    const token = await loginAdmin(controller.baseUrl, ADMIN_USERNAME, ADMIN_PASSWORD);
    for (const scenario of phase.scenarios) {
      const server = scenario.target === 'hello' ? hello! : controller;
      run.scenarios.push(await runScenario(scenario, server, token, phase.identities));
    }
  } finally {
    await hello?.stop();
    await controller.stop();
  }
}

/** Identity lists at the small and the large seed, the ceiling, current identity and password login. */
async function runPlatformPhase(home: string, port: number, run: RunFigures): Promise<void> {
  const { smallSeed, largeSeed } = settings;
  // Before any server starts, so the hash rate has every core to itself.
  say(`measuring the raw argon2id hash rate (${settings.hashSeconds} s)…`);
  const hashRate = await measureHashRate(settings.hashSeconds);
  run.hashRate = hashRate;
  say(`  ${hashRate.hashesPerSecond.toFixed(0)} hashes/s`);

  await seed(home, 0, smallSeed, run.seeding);
  const lists = [
    scenarios.listByName,
    scenarios.listByNameEach(home, smallSeed),
    scenarios.listByAttribute,
    scenarios.listByAttributeEach(home, smallSeed),
  ];
  const others = [
    scenarios.ceiling,
    scenarios.currentIdentity,
    scenarios.passwordLogin(ADMIN_USERNAME, ADMIN_PASSWORD),
  ];
  await runLoads({ home, port, identities: smallSeed, scenarios: [...lists, ...others], withHello: true }, run);
  await seed(home, smallSeed, largeSeed, run.seeding);
  await runLoads({ home, port, identities: largeSeed, scenarios: lists, withHello: false }, run);
  run.goals.push(...evaluatePlatformGoals(run.scenarios, hashRate, smallSeed, largeSeed));
}

async function main(): Promise<void> {
  installSignalCleanup();
  const startedAt = new Date().toISOString();
  const home = mkdtempSync(join(tmpdir(), 'ziti-bench-'));
  // BENCH_KEEP_HOME=1 leaves the database behind for bench/profile-policy-change.ts.
  if (process.env.BENCH_KEEP_HOME === '1') say(`home folder kept: ${home}`);
  else onCleanup(() => rmSync(home, { recursive: true, force: true }));
  const port = await freePort();
  const run: RunFigures = { seeding: [], controllerRssMb: [], scenarios: [], goals: [] };
  say(`phases: ${settings.phases.join(', ')}`);

  // The first start creates the database, PKI and admin; the seeders need the schema in place.
  await (await startController(home, port)).stop();
  if (settings.phases.includes('platform')) await runPlatformPhase(home, port, run);
  if (settings.phases.includes('flood')) {
    run.bodyFlood = await runBodyFloodPhase(home, port);
    run.goals.push(...evaluateBodyFloodGoals(run.bodyFlood));
  }
  if (settings.phases.includes('scale')) {
    const seededIdentities = run.seeding.reduce((most, s) => Math.max(most, s.to), 0);
    run.scale = await runScalePhase({ home, port, seededIdentities, scenarios: run.scenarios });
    run.goals.push(...evaluateScaleGoals(run.scale, run.scenarios));
  }
  if (settings.phases.includes('observability')) {
    run.observability = await runObservabilityPhase({ home, port, rounds: Math.max(1, settings.observabilityRounds) });
    run.scenarios.push(run.observability.plain, run.observability.observed);
    run.goals.push(evaluateObservabilityGoal(run.observability));
  }
  // In homes of its own: its model and sessions would change what the other phases measure.
  if (settings.phases.includes('sessions')) run.goals.push(...(await runSessionPhase(port, run)));
  if (settings.phases.includes('mixed')) {
    run.mixed = await runMixedPhase();
    run.goals.push(evaluateMixedGoal(run.mixed));
  }
  // Upstream after ours, on a machine ours no longer loads; its scenarios join the same table.
  run.upstream = await runUpstreamPhase();
  run.scenarios.push(...run.upstream.scenarios);
  run.goals.push(...upstreamGoals(compareWithUpstream(run.scenarios, run.scale, run.upstream), run.upstream));

  const report: BenchRun = {
    startedAt,
    finishedAt: new Date().toISOString(),
    machine: machineFacts(),
    settings,
    ...run,
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
