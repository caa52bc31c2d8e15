// Upstream v1.1.8 on the same scenarios, in the same run, for ours ÷ upstream ratios: one upstream controller (no
// router), seeded through its management API with the same identities, services, policies and sessions model ours
// gets, then loaded by the same autocannon child with the same settings.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onCleanup } from './cleanup.js';
import { startUpstream, UpstreamUnavailable, type UpstreamController } from '../scripts/upstream.js';
import { ADMIN_PASSWORD, ADMIN_USERNAME } from './controller-process.js';
import { loginAdmin } from './https-client.js';
import type { ScenarioResult } from './report.js';
import { scaleIdentities, scaleModel } from './scale-model.js';
import { closeModelConnections } from './session-model.js';
import { loadSessionScenarios, prepareSessionScenarios } from './session-phase.js';
import {
  measureAttributeChanges,
  measurePolicyChanges,
  type AttributeChanges,
  type PolicyChanges,
} from './scale-writes.js';
import * as scenarios from './scenarios.js';
import type { Scenario } from './scenarios.js';
import { measureClientReads, notMeasured, type Unavailable } from './scale-phase.js';
import { probeScenario, runScenario } from './scenario-run.js';
import { readCpuSeconds, readRssMb, type ServerProcess } from './server-process.js';
import { say, settings } from './settings.js';
import { apiSeeder, seedUpstreamIdentities, seedUpstreamScale, type ApiSeeder } from './upstream-seed.js';

export interface UpstreamRun {
  /** Why upstream did not run, when it did not. */
  skipped?: string;
  scenarios: ScenarioResult[];
  seeding: Array<{ what: string; count: number; ms: number }>;
  unavailable: Unavailable[];
  attributeChanges?: AttributeChanges;
  policyChanges?: PolicyChanges;
  rssMb: { idle?: number; peak?: number };
}

export function asServer(upstream: UpstreamController): ServerProcess {
  return {
    name: 'upstream',
    pid: upstream.pid,
    baseUrl: upstream.baseUrl,
    rssMb: () => readRssMb(upstream.pid),
    peakRssMb: () => readRssMb(upstream.pid, 'VmHWM'),
    cpuSeconds: () => readCpuSeconds(upstream.pid),
    stop: () => upstream.stop(),
  };
}

const onUpstream = (scenario: Scenario): Scenario => ({ ...scenario, target: 'upstream' });

export async function runUpstreamPhase(): Promise<UpstreamRun> {
  const run: UpstreamRun = { scenarios: [], seeding: [], unavailable: [], rssMb: {} };
  if (!settings.upstream) return { ...run, skipped: 'BENCH_UPSTREAM=0' };
  let upstream: UpstreamController;
  try {
    upstream = await startUpstream({ username: ADMIN_USERNAME, password: ADMIN_PASSWORD });
  } catch (error) {
    if (!(error instanceof UpstreamUnavailable)) throw error;
    say(`upstream not run: ${error.message}`);
    return { ...run, skipped: error.message };
  }
  const server = asServer(upstream);
  say(`upstream v1.1.8 ready at ${server.baseUrl} (pid ${server.pid})`);
  run.rssMb.idle = server.rssMb();
  const token = await loginAdmin(server.baseUrl, ADMIN_USERNAME, ADMIN_PASSWORD);
  const seeder = apiSeeder(server.baseUrl, token);
  // Variants files of the loads (list-by-name-each, session creates).
  const dir = mkdtempSync(join(tmpdir(), 'ziti-bench-upstream-'));
  const removeDir = onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  try {
    const withScale = settings.phases.includes('scale');
    const seeded = { identities: 0 };
    const seedTo = async (to: number) => {
      if (to <= seeded.identities) return;
      const started = performance.now();
      say(`seeding upstream identities ${seeded.identities}..${to} through its API…`);
      await seedUpstreamIdentities(seeder, seeded.identities, to, withScale);
      run.seeding.push({ what: 'identities', count: to - seeded.identities, ms: performance.now() - started });
      seeded.identities = to;
    };
    const load = async (list: Scenario[], identities: number) => {
      for (const scenario of list.map(onUpstream)) {
        const probe = await probeScenario(scenario, server, token);
        if (probe.status >= 200 && probe.status <= 299)
          run.scenarios.push(await runScenario(scenario, server, token, identities, probe));
        else run.unavailable.push(notMeasured(scenario, probe));
      }
    };
    if (settings.phases.includes('platform')) {
      await seedTo(settings.smallSeed);
      const { smallSeed } = settings;
      const lists = [
        scenarios.listByName,
        scenarios.listByNameEach(dir, smallSeed),
        scenarios.listByAttribute,
        scenarios.listByAttributeEach(dir, smallSeed),
      ];
      await load(
        [...lists, scenarios.currentIdentity, scenarios.passwordLogin(ADMIN_USERNAME, ADMIN_PASSWORD)],
        settings.smallSeed,
      );
      await seedTo(settings.largeSeed);
      await load(lists, settings.largeSeed);
    }
    if (withScale) await runUpstreamScale(server, token, seeder, seedTo, seeded, run);
    if (settings.phases.includes('sessions')) await runUpstreamSessions(server, token, seedTo, run, dir);
    run.rssMb.peak = server.peakRssMb();
  } finally {
    seeder.close();
    await server.stop();
    removeDir();
    rmSync(dir, { recursive: true, force: true });
  }
  return run;
}

/**
 * The sessions phase's model and loads, on upstream holding the large seed's identities (and the scale model when
 * that phase ran), compared with ours at the large seed. Upstream checks that an edge router is shared by policy,
 * not that one is online, so it creates sessions without a router running.
 */
async function runUpstreamSessions(
  server: ServerProcess,
  token: string,
  seedTo: (to: number) => Promise<void>,
  run: UpstreamRun,
  dir: string,
): Promise<void> {
  await seedTo(settings.largeSeed);
  try {
    say(`upstream sessions model at ${settings.largeSeed} identities…`);
    const scenarios = await prepareSessionScenarios(server.baseUrl, token, dir, 'upstream');
    for (const result of await loadSessionScenarios(scenarios, server, settings.largeSeed)) {
      if (result.load.totalRequests > 0) run.scenarios.push(result);
      else
        run.unavailable.push({
          key: result.key,
          path: result.path,
          status: 0,
          errorCode: `no request completed within the ${settings.durationSeconds} s load`,
        });
    }
  } finally {
    closeModelConnections();
  }
}

async function runUpstreamScale(
  server: ServerProcess,
  token: string,
  seeder: ApiSeeder,
  seedTo: (to: number) => Promise<void>,
  seeded: { identities: number },
  run: UpstreamRun,
): Promise<void> {
  const model = scaleModel(settings.scaleFactor);
  await seedTo(model.identities);
  const started = performance.now();
  const ids = await seedUpstreamScale(seeder, model);
  run.seeding.push({
    what: 'scale model (services, routers, policies)',
    count: model.services + model.edgeRouters + model.servicePolicies,
    ms: performance.now() - started,
  });

  const reads = await measureClientReads(server, seeded.identities, 'upstream');
  run.scenarios.push(...reads.loads);
  run.unavailable.push(...reads.unavailable);

  const changedId = await seeder.idByName('identities', scaleIdentities.changed.name);
  say(`upstream role-attribute changes on ${scaleIdentities.changed.name}: ${settings.attributeChanges} timed…`);
  run.attributeChanges = await measureAttributeChanges(server, token, changedId, settings.attributeChanges);
  say(
    `  mean ${run.attributeChanges.meanMs.toFixed(2)} ms, p99 ${run.attributeChanges.p99Ms.toFixed(2)} ms, failures ${run.attributeChanges.failures}`,
  );
  say(`upstream 5% policy: ${settings.policyChanges} service-role changes…`);
  run.policyChanges = await measurePolicyChanges(server, token, ids.fivePercentPolicy, settings.policyChanges);
  say(
    `  ${run.policyChanges.steps.map((step) => `${step.change} ${step.status} ${step.ms.toFixed(0)} ms`).join(', ')}`,
  );
}
