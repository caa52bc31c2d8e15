// The scale phase: seed the scale model (entities directly, links through the engine), check the links, then
// measure the client's service list, service-update polling, role-attribute and policy changes, and memory.
import { join } from 'node:path';
import { startController, ADMIN_PASSWORD, ADMIN_USERNAME } from './controller-process.js';
import { errorCode, loginAdmin, loginWithPassword } from './https-client.js';
import type { ScenarioResult } from './report.js';
import { generateLinks, type LinkGeneration } from './scale-links.js';
import { scaleIdentities, scaleModel, type ScaleModel } from './scale-model.js';
import { verifyLinks, type LinkCheck } from './scale-verify.js';
import {
  measureAttributeChanges,
  measurePolicyChanges,
  storeLinkCounter,
  type AttributeChanges,
  type PolicyChanges,
} from './scale-writes.js';
import * as scenarios from './scenarios.js';
import type { Scenario } from './scenarios.js';
import { probeScenario, ROOT, runScenario } from './scenario-run.js';
import { seedIdentities } from './seed-identities.js';
import { seedScaleModel, type ScaleSeeding } from './seed-scale.js';
import { freePort, startServer, type ServerProcess } from './server-process.js';
import { say, settings } from './settings.js';

export interface ScaleResult {
  factor: number;
  model: ScaleModel;
  /** Bench identities in the database (the heavy one and the admin not counted). */
  identities: number;
  seeding: { identitiesMs: number; entitiesMs: number; rows: Record<string, number> };
  links: LinkGeneration;
  checkAfterSeeding: LinkCheck;
  /** The same check once the measured writes went through the running controller's engine. */
  checkAfterRun?: LinkCheck;
  /** Requests that answered something other than 2xx and so were not loaded or measured. */
  unavailable: Array<{ key: string; path: string; status: number; errorCode?: string }>;
  attributeChanges?: AttributeChanges;
  policyChanges?: PolicyChanges;
  rssMb: { idle: number; afterReads?: number; afterWrites?: number; peak?: number };
}

export interface ScalePhaseStart {
  home: string;
  port: number;
  /** Bench identities the platform phase already seeded (0 when it did not run). */
  seededIdentities: number;
  /** The run's load scenarios so far; the ceiling is measured here only if it is not among them. */
  scenarios: ScenarioResult[];
}

const progress = (line: string) => say(line);

export async function runScalePhase(start: ScalePhaseStart): Promise<ScaleResult> {
  const model = scaleModel(settings.scaleFactor);
  say(`scale model (factor ${settings.scaleFactor}): ${JSON.stringify(model)}`);
  const identities = Math.max(start.seededIdentities, model.identities);
  const seedMore = start.seededIdentities < model.identities;
  const seedProgress = (done: number) => say(`seeded ${done}/${model.identities} identities`);
  const identitiesMs = seedMore
    ? await seedIdentities(start.home, start.seededIdentities, model.identities, seedProgress)
    : 0;

  say('seeding services, edge routers and policies…');
  const seeded = await seedScaleModel(start.home, model, progress);
  say(`  ${(seeded.ms / 1000).toFixed(1)} s`);
  say('generating links with the policy engine (syncPolicy per policy)…');
  const links = await generateLinks(start.home, progress);
  say(
    `  ${(links.ms / 1000).toFixed(1)} s: ${Object.entries(links.rows)
      .map(([table, n]) => `${table} ${n}`)
      .join(', ')}`,
  );
  const checkAfterSeeding = await checkLinks(start.home, 'after seeding');

  const result: ScaleResult = {
    factor: settings.scaleFactor,
    model,
    identities,
    seeding: { identitiesMs, entitiesMs: seeded.ms, rows: seeded.rows },
    links,
    checkAfterSeeding,
    unavailable: [],
    rssMb: { idle: 0 },
  };
  const controller = await startController(start.home, start.port);
  try {
    result.rssMb.idle = controller.rssMb();
    if (!start.scenarios.some((s) => s.key === 'ceiling')) start.scenarios.push(await measureCeiling(start.home));
    await measure({ controller, home: start.home, seeded, loads: start.scenarios }, result);
    result.rssMb.peak = controller.peakRssMb();
  } finally {
    await controller.stop();
  }
  result.checkAfterRun = await checkLinks(start.home, 'after the measured writes');
  return result;
}

interface Measured {
  controller: ServerProcess;
  home: string;
  seeded: ScaleSeeding;
  /** Where the load scenarios' results go (the run's table). */
  loads: ScenarioResult[];
}

export type Unavailable = ScaleResult['unavailable'][number];

/** What a not-measured scenario got instead of an answer (status 0: none at all). */
export function describeUnavailable(u: Pick<Unavailable, 'key' | 'status' | 'errorCode'>): string {
  if (u.status === 0) return `${u.key}: ${u.errorCode ?? 'no answer'}`;
  return `${u.key} answered ${u.status}${u.errorCode ? ` ${u.errorCode}` : ''}`;
}

/** Records a scenario whose login or probe failed as not measured, instead of loading a stream of errors. */
export function notMeasured(
  scenario: Scenario,
  refusal: { status: number; errorCode?: string | undefined },
  what = scenario.path,
): Unavailable {
  const code = refusal.errorCode;
  say(
    `${scenario.target} ${scenario.key}: NOT MEASURED — ${what}: ${describeUnavailable({ key: scenario.key, ...refusal })}`,
  );
  return { key: scenario.key, path: scenario.path, status: refusal.status, ...(code ? { errorCode: code } : {}) };
}

/**
 * The client reads at the scale model, each as the identity whose list it is (logged in through the client API);
 * a login or probe that fails is recorded as not measured instead of loading a stream of errors.
 */
export async function measureClientReads(
  server: ServerProcess,
  identities: number,
  target: Scenario['target'],
): Promise<{ loads: ScenarioResult[]; unavailable: Unavailable[] }> {
  const clientApi = `${server.baseUrl}/edge/client/v1`;
  const runs = [
    { scenario: scenarios.clientServices('typical'), username: scaleIdentities.typical.username },
    { scenario: scenarios.clientServices('heavy'), username: scaleIdentities.heavy.username },
    { scenario: scenarios.serviceUpdates, username: scaleIdentities.typical.username },
  ];
  const loads: ScenarioResult[] = [];
  const unavailable: Unavailable[] = [];
  for (const { scenario: base, username } of runs) {
    const scenario = { ...base, target };
    const token = await loginWithPassword(clientApi, username, scaleIdentities.password);
    if (typeof token !== 'string') {
      unavailable.push(
        notMeasured(
          scenario,
          { status: token.status, errorCode: errorCode(token.body) },
          `the client login as ${username}`,
        ),
      );
      continue;
    }
    const probe = await probeScenario(scenario, server, token);
    if (probe.status < 200 || probe.status > 299) unavailable.push(notMeasured(scenario, probe));
    else loads.push(await runScenario(scenario, server, token, identities, probe));
  }
  return { loads, unavailable };
}

async function measure({ controller, home, seeded, loads }: Measured, result: ScaleResult): Promise<void> {
  const adminToken = await loginAdmin(controller.baseUrl, ADMIN_USERNAME, ADMIN_PASSWORD);
  const reads = await measureClientReads(controller, result.identities, 'controller');
  loads.push(...reads.loads);
  result.unavailable.push(...reads.unavailable);
  result.rssMb.afterReads = controller.rssMb();

  say(`role-attribute changes on ${scaleIdentities.changed.name}: ${settings.attributeChanges} timed…`);
  const changes = await measureAttributeChanges(controller, adminToken, seeded.ids.changed, settings.attributeChanges);
  result.attributeChanges = changes;
  say(
    `  p50 ${changes.p50Ms.toFixed(2)} ms, p99 ${changes.p99Ms.toFixed(2)} ms, mean ${changes.meanMs.toFixed(2)} ms, ` +
      `server CPU ${changes.cpuMsPerChange.toFixed(2)} ms/change, failures ${changes.failures}, other load ${changes.otherCores.toFixed(2)} cores`,
  );

  say(`5% policy: ${settings.policyChanges} service-role changes…`);
  const policy = await measurePolicyChanges(
    controller,
    adminToken,
    seeded.ids.fivePercentPolicy,
    settings.policyChanges,
    await storeLinkCounter(home),
  );
  result.policyChanges = policy;
  for (const step of policy.steps) {
    const rows = `${step.rowsAddedOrDeleted} rows ${step.change === 'add' ? 'inserted' : 'deleted'}`;
    const usage = `server CPU ${step.usage.serverCpuMs.toFixed(0)} ms, other load ${step.usage.otherCores.toFixed(2)} cores`;
    say(`  ${step.change}: ${step.status}, ${step.ms.toFixed(0)} ms, ${step.linksChanged} links (${rows}), ${usage}`);
  }
  say(
    `  ${(policy.linksPerSecond / 1000).toFixed(0)}k links/s (by server CPU ${(policy.linksPerCpuSecond / 1000).toFixed(0)}k/s); ` +
      `a PATCH that changes no link: ${policy.noLinkChangeMs.toFixed(1)} ms`,
  );
  result.rssMb.afterWrites = controller.rssMb();
}

async function measureCeiling(home: string): Promise<ScenarioResult> {
  const port = await freePort();
  const hello = await startServer({
    name: 'hello server',
    args: ['bench/hello-server.ts', join(home, 'pki'), String(port)],
    port,
    readyPath: '/hello',
    cwd: ROOT,
  });
  try {
    return await runScenario(scenarios.ceiling, hello, '', 0);
  } finally {
    await hello.stop();
  }
}

async function checkLinks(home: string, when: string): Promise<LinkCheck> {
  say(`integrity scan ${when}…`);
  const check = await verifyLinks(home);
  const verdict =
    check.differences === 0 ? 'consistent' : `${check.differences} DIFFERENCES, first: ${check.mismatches[0]}`;
  say(`  every derived row checked: ${verdict} (${(check.ms / 1000).toFixed(1)} s)`);
  return check;
}
