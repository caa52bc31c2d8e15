// The run's figures: goal verdicts, the table printed on stdout and the JSON file under bench/results/.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatBodyFlood, type BodyFloodResult } from './body-flood.js';
import type { HashRate } from './hash-rate.js';
import type { LoadFigures } from './load.js';
import { formatMixed, type MixedResult } from './mixed-phase.js';
import type { ObservabilityResult } from './observability-phase.js';
import type { ScaleResult } from './scale-phase.js';
import { formatScale } from './scale-report.js';
import type { Target } from './scenarios.js';
import { formatUpstream } from './upstream-report.js';
import type { UpstreamRun } from './upstream-phase.js';
import type { Settings } from './settings.js';

export interface ScenarioResult {
  key: string;
  target: Target;
  /** Identities seeded before the run (the admin not counted); 0 for the hello server. */
  identities: number;
  method: string;
  path: string;
  /** Status (and error code) of one request sent before the load: shows a 501 or 401 up front. */
  probe: { status: number; errorCode?: string; totalCount?: number };
  load: LoadFigures;
  /** The server's CPU time (all threads) over the warm-up and the measured run, per request. */
  cpuMsPerRequest: number;
  /** Cores kept busy by processes other than the server and the load generator, averaged over the scenario. */
  otherCores: number;
  /** The loaded server's resident memory right after the scenario. */
  rssMb: number;
}

export interface Goal {
  goal: string;
  /** From req/s. */
  measured: number | undefined;
  /** The same from server CPU per request, where that applies. */
  cpuRatio?: number;
  verdict: 'pass' | 'miss' | 'info';
  note?: string;
}

export interface BenchRun {
  startedAt: string;
  finishedAt: string;
  machine: { cpus: number; cpuModel: string; node: string; totalMemoryMb: number };
  settings: Settings;
  /** Measured with the platform phase only. */
  hashRate?: HashRate;
  seeding: Array<{ from: number; to: number; ms: number }>;
  controllerRssMb: Array<{ when: string; rssMb: number }>;
  scenarios: ScenarioResult[];
  scale?: ScaleResult;
  observability?: ObservabilityResult;
  bodyFlood?: BodyFloodResult;
  mixed?: MixedResult;
  /** Upstream v1.1.8 on the same scenarios (its results are in `scenarios` with target `upstream`). */
  upstream?: UpstreamRun;
  goals: Goal[];
}

const CURRENT_IDENTITY_SHARE = 0.7;
const LARGE_LIST_SHARE = 0.8;

export function evaluatePlatformGoals(
  scenarios: ScenarioResult[],
  hashRate: HashRate,
  smallSeed: number,
  largeSeed: number,
): Goal[] {
  const find = (key: string, identities?: number) =>
    scenarios.find((s) => s.key === key && (identities === undefined || s.identities === identities));
  const ceiling = find('ceiling');
  const goals: Goal[] = [];

  const current = find('current-identity');
  const currentGoal = `current-identity ≥ ${CURRENT_IDENTITY_SHARE * 100}% of the ceiling`;
  goals.push(shareGoal(currentGoal, current, ceiling, CURRENT_IDENTITY_SHARE));

  const login = find('password-login');
  goals.push({
    goal: 'password login/s ÷ raw argon2id hash/s (all cores)',
    measured: login ? login.load.requestsPerSecond / hashRate.hashesPerSecond : undefined,
    verdict: 'info',
    note: login ? failureNote(login) : 'not run',
  });

  // First reads (another query each request): repeated queries are answered from the kept answer, whose cost
  // does not depend on the table.
  for (const key of ['list-by-name-each', 'list-by-attribute-each']) {
    goals.push(
      shareGoal(
        `${key} at ${largeSeed} ≥ ${LARGE_LIST_SHARE * 100}% of its rate at ${smallSeed}`,
        find(key, largeSeed),
        find(key, smallSeed),
        LARGE_LIST_SHARE,
      ),
    );
  }
  return goals;
}

export function shareGoal(
  goal: string,
  measured: ScenarioResult | undefined,
  base: ScenarioResult | undefined,
  share: number,
): Goal {
  if (!measured || !base) return { goal, measured: undefined, verdict: 'miss', note: 'not run' };
  const ratio = measured.load.requestsPerSecond / base.load.requestsPerSecond;
  // The same ratio from server CPU per request: what req/s would show on a machine nobody else uses.
  const cpuRatio = base.cpuMsPerRequest / measured.cpuMsPerRequest;
  // A fast stream of 501s or 401s says nothing about the goal.
  const failure = failureNote(measured) ?? failureNote(base);
  const note = `by CPU/request: ${cpuRatio.toFixed(3)}${failure ? `; ${failure}` : ''}`;
  return { goal, measured: ratio, cpuRatio, verdict: ratio >= share && !failure ? 'pass' : 'miss', note };
}

function failureNote(result: ScenarioResult): string | undefined {
  const { non2xx, errors, timeouts } = result.load;
  if (non2xx === 0 && errors === 0 && timeouts === 0) return undefined;
  const code = result.probe.errorCode ? ` ${result.probe.errorCode}` : '';
  return `${result.key}: ${non2xx} non-2xx (probe ${result.probe.status}${code}), ${errors} errors, ${timeouts} timeouts`;
}

const TABLE_ORDER = [
  ...[
    'ceiling',
    'current-identity',
    'password-login',
    'list-by-name',
    'list-by-name-each',
    'list-by-attribute',
    'list-by-attribute-each',
  ],
  ...['client-services-typical', 'client-services-heavy', 'service-updates'],
  ...['current-identity-plain', 'current-identity-observed'],
  ...[
    'session-create-typical',
    'session-create-typical-posture',
    'session-create-heavy',
    'session-create-heavy-posture',
    'posture-response-bulk',
  ],
];
const HEADER = [
  ...['scenario', 'identities', 'matches', 'req/s', '÷ ceiling', 'p50 ms', 'p99 ms'],
  ...['non-2xx', 'errors', 'status', 'CPU ms/req', 'RSS MB', 'other load'],
];

function scenarioRows(results: ScenarioResult[]): string[][] {
  const ceiling = results.find((s) => s.key === 'ceiling')?.load.requestsPerSecond;
  const order = (s: ScenarioResult) =>
    (s.identities * TABLE_ORDER.length + TABLE_ORDER.indexOf(s.key)) * 2 + (s.target === 'upstream' ? 1 : 0);
  return [...results]
    .sort((a, b) => order(a) - order(b))
    .map(({ key, target, identities, probe, load, cpuMsPerRequest, rssMb, otherCores }) => [
      target === 'upstream' ? `${key} (upstream)` : key,
      target === 'hello' ? '-' : String(identities),
      probe.totalCount === undefined ? '-' : String(probe.totalCount),
      load.requestsPerSecond.toFixed(0),
      ceiling ? `${((load.requestsPerSecond / ceiling) * 100).toFixed(1)}%` : '-',
      load.latencyP50Ms.toFixed(1),
      load.latencyP99Ms.toFixed(1),
      String(load.non2xx),
      String(load.errors + load.timeouts),
      Object.keys(load.statusCodes).join(',') || '-',
      cpuMsPerRequest.toFixed(3),
      rssMb.toFixed(0),
      otherCores.toFixed(2),
    ]);
}

export function formatReport(run: BenchRun): string {
  const { machine, settings, hashRate } = run;
  const measured = (g: Goal) => (g.measured === undefined ? '-' : g.measured.toFixed(3));
  const lines = [
    `machine: ${machine.cpus} × ${machine.cpuModel}, node ${machine.node}; phases: ${settings.phases.join(', ')}`,
    `controller: ${settings.store === 'postgres' ? 'PostgreSQL' : 'SQLite'}, ${settings.workers === 1 ? 'one process' : `${settings.workers} worker processes (CPU and RSS: all of them)`}`,
    `load: autocannon, ${settings.connections} connections, ${settings.durationSeconds} s (+${settings.warmupSeconds} s warm-up) per scenario`,
    ...(hashRate
      ? [`argon2id raw hash rate: ${hashRate.hashesPerSecond.toFixed(0)}/s (${hashRate.inFlight} in flight)`]
      : []),
    ...(run.controllerRssMb.length
      ? [
          `controller RSS when idle: ${run.controllerRssMb.map((r) => `${r.rssMb.toFixed(0)} MB (${r.when})`).join(', ')}`,
        ]
      : []),
    ...(run.seeding.length
      ? [
          `seeding: ${run.seeding.map((s) => `${s.to - s.from} identities in ${(s.ms / 1000).toFixed(1)} s`).join(', ')}`,
        ]
      : []),
    ...(run.scale ? formatScale(run.scale) : []),
    ...(run.bodyFlood ? formatBodyFlood(run.bodyFlood) : []),
    ...(run.mixed ? formatMixed(run.mixed) : []),
    ...formatUpstream(run.upstream),
    '',
    ...table(HEADER, scenarioRows(run.scenarios)),
    "matches: the list's totalCount. p50/p99: whole milliseconds (autocannon's resolution).",
    'CPU: the server process, all threads, warm-up included. other load: cores used by anything else meanwhile.',
    ...noiseWarning(run.scenarios),
    ...repeatedWarning(run.scenarios),
    '',
    'goals:',
    ...run.goals.map(
      (g) => `  ${g.verdict.toUpperCase().padEnd(4)}  ${g.goal}: ${measured(g)}${g.note ? `  (${g.note})` : ''}`,
    ),
  ];
  return lines.join('\n');
}

/** Session creates that ran out of new (API session, service) combinations measured some reuses too. */
function repeatedWarning(results: ScenarioResult[]): string[] {
  const repeated = results
    .filter((s) => (s.load.repeated ?? 0) > 0)
    .map((s) => `${s.key}@${s.identities} (${s.load.repeated})`);
  return repeated.length === 0
    ? []
    : [`WARNING: requests repeated an already made session in ${repeated.join(', ')}; raise BENCH_SESSION_MAX_RATE.`];
}

const NOISY_CORES = 0.25;

function noiseWarning(results: ScenarioResult[]): string[] {
  const label = (s: ScenarioResult) => (s.target === 'hello' ? s.key : `${s.key}@${s.identities}`);
  const noisy = results.filter((s) => s.otherCores > NOISY_CORES).map(label);
  if (noisy.length === 0) return [];
  return [
    `WARNING: other processes loaded the machine during ${noisy.join(', ')}; compare CPU ms/req there, not req/s.`,
  ];
}

function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)];
}

export function writeResults(run: BenchRun, folder: string): string {
  mkdirSync(folder, { recursive: true });
  const file = join(folder, `${run.startedAt.replaceAll(':', '-')}.json`);
  writeFileSync(file, `${JSON.stringify(run, null, 2)}\n`);
  return file;
}
