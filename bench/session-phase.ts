// The sessions phase (BENCH_PHASES=sessions): `POST /sessions` (Dial) for a typical and a heavy identity, with and
// without posture checks, and `POST /posture-response-bulk`, each at the small and at the large identity seed, in
// a home of its own per seed. Goal: the rate at the large seed stays ≥ 80% of the rate at the small one.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onCleanup } from './cleanup.js';
import { ADMIN_PASSWORD, ADMIN_USERNAME, startController } from './controller-process.js';
import { loginAdmin } from './https-client.js';
import type { RequestVariants } from './load.js';
import { shareGoal, type BenchRun, type Goal, type ScenarioResult } from './report.js';
import type { Scenario } from './scenarios.js';
import { runScenario } from './scenario-run.js';
import { seedIdentities } from './seed-identities.js';
import {
  closeModelConnections,
  loginMany,
  postureReport,
  reportPosture,
  sessionModel,
  setUpSessionModel,
  type BenchUser,
} from './session-model.js';
import type { ServerProcess } from './server-process.js';
import { say, settings } from './settings.js';

const LARGE_SHARE = 0.8;

export const SESSION_SCENARIOS = [
  'session-create-typical',
  'session-create-typical-posture',
  'session-create-heavy',
  'session-create-heavy-posture',
  'posture-response-bulk',
];

type Figures = Pick<BenchRun, 'seeding' | 'controllerRssMb' | 'scenarios'>;

/**
 * A create must name an API session, service and type not used yet, or it measures the reuse: enough API sessions
 * that tokens × services covers the whole load at BENCH_SESSION_MAX_RATE (what is sent beyond is reported).
 */
function tokensNeeded(services: number): number {
  const requests = settings.sessionMaxRate * (settings.durationSeconds + settings.warmupSeconds);
  return Math.max(1, Math.ceil(requests / services));
}

function createScenario(
  target: Scenario['target'],
  home: string,
  key: string,
  tokens: string[],
  services: string[],
  tokensInTurn: boolean,
): Scenario {
  const bodies = services.map((serviceId) => JSON.stringify({ serviceId, type: 'Dial' }));
  const variants: RequestVariants = { tokens, bodies, tokensInTurn };
  const variantsFile = join(home, `${key}.json`);
  writeFileSync(variantsFile, JSON.stringify(variants));
  return {
    key,
    target,
    method: 'POST',
    path: '/edge/client/v1/sessions',
    isAuthenticated: true,
    body: bodies[0]!,
    variantsFile,
  };
}

/**
 * Makes the sessions model on a running controller (ours or upstream, through its management API), logs its users in
 * and reports their posture, and returns the five scenarios with the token each is loaded with. `tokensInTurn`: the
 * creates running at once are of different API sessions (RequestVariants), else of one API session at a time.
 */
export async function prepareSessionScenarios(
  baseUrl: string,
  adminToken: string,
  dir: string,
  target: Scenario['target'],
  tokensInTurn = false,
): Promise<Array<[Scenario, string]>> {
  const started = performance.now();
  const fixture = await setUpSessionModel(baseUrl, adminToken, sessionModel(settings.sessionHeavyServices), say);
  const logins = async (user: BenchUser) => {
    const tokens = await loginMany(baseUrl, user, tokensNeeded(user.plain.length));
    await reportPosture(baseUrl, tokens[0]!, fixture.osCheckId);
    return tokens;
  };
  const typical = await logins(fixture.typical);
  const heavy = await logins(fixture.heavy);
  say(`  ${((performance.now() - started) / 1000).toFixed(1)} s, ${typical.length} + ${heavy.length} API sessions`);
  return [
    [createScenario(target, dir, 'session-create-typical', typical, fixture.typical.plain, tokensInTurn), typical[0]!],
    [
      createScenario(target, dir, 'session-create-typical-posture', typical, fixture.typical.postured, tokensInTurn),
      typical[0]!,
    ],
    [createScenario(target, dir, 'session-create-heavy', heavy, fixture.heavy.plain, tokensInTurn), heavy[0]!],
    [
      createScenario(target, dir, 'session-create-heavy-posture', heavy, fixture.heavy.postured, tokensInTurn),
      heavy[0]!,
    ],
    [
      {
        key: 'posture-response-bulk',
        target,
        method: 'POST',
        path: '/edge/client/v1/posture-response-bulk',
        isAuthenticated: true,
        body: postureReport(fixture.osCheckId),
      },
      typical[0]!,
    ],
  ];
}

export async function loadSessionScenarios(
  scenarios: Array<[Scenario, string]>,
  server: ServerProcess,
  identities: number,
): Promise<ScenarioResult[]> {
  const results: ScenarioResult[] = [];
  for (const [scenario, token] of scenarios) {
    const result = await runScenario(scenario, server, token, identities);
    if (result.load.repeated)
      say(
        `  ${scenario.key}: ${result.load.repeated} requests repeated a session already made (raise BENCH_SESSION_MAX_RATE)`,
      );
    results.push(result);
  }
  return results;
}

async function runAtSeed(identities: number, port: number, run: Figures): Promise<void> {
  const home = mkdtempSync(join(tmpdir(), 'ziti-bench-sessions-'));
  const removeHome = onCleanup(() => rmSync(home, { recursive: true, force: true }));
  try {
    // The first start creates the schema the seeder writes into.
    await (await startController(home, port)).stop();
    const ms = await seedIdentities(home, 0, identities, (done) => say(`seeded ${done}/${identities}`));
    run.seeding.push({ from: 0, to: identities, ms });
    const controller = await startController(home, port);
    try {
      const admin = await loginAdmin(controller.baseUrl, ADMIN_USERNAME, ADMIN_PASSWORD);
      say(`sessions model at ${identities} identities…`);
      const scenarios = await prepareSessionScenarios(controller.baseUrl, admin, home, 'controller');
      run.controllerRssMb.push({ when: `sessions model, ${identities} identities`, rssMb: controller.rssMb() });
      run.scenarios.push(...(await loadSessionScenarios(scenarios, controller, identities)));
    } finally {
      closeModelConnections();
      await controller.stop();
    }
  } finally {
    removeHome();
    rmSync(home, { recursive: true, force: true });
  }
}

export async function runSessionPhase(port: number, run: Figures): Promise<Goal[]> {
  const { smallSeed, largeSeed } = settings;
  for (const identities of [smallSeed, largeSeed]) await runAtSeed(identities, port, run);
  const find = (key: string, identities: number) =>
    run.scenarios.find((s) => s.key === key && s.identities === identities);
  return SESSION_SCENARIOS.map((key) =>
    shareGoal(
      `${key} at ${largeSeed} ≥ ${LARGE_SHARE * 100}% of its rate at ${smallSeed}`,
      find(key, largeSeed),
      find(key, smallSeed),
      LARGE_SHARE,
    ),
  );
}
