// The stores bench's table (bench/stores.ts): each scenario's rate and p99 per store, the ratios issue 26 sets goals
// on, and the JSON file of the run under bench/results/.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Goal, ScenarioResult } from './report.js';
import type { Settings } from './settings.js';

export const STORES = ['sqlite', 'postgres', 'postgres2', 'upstream'] as const;
export type StoreName = (typeof STORES)[number];

const LABELS: Record<StoreName, string> = {
  sqlite: 'SQLite',
  postgres: 'PG-1',
  postgres2: 'PG-2',
  upstream: 'upstream',
};

export interface StoresRun {
  startedAt: string;
  finishedAt?: string;
  quick: boolean;
  settings: Settings;
  stores: Partial<Record<StoreName, ScenarioResult[]>>;
  /** Why a store was not measured (upstream without its binary). */
  skipped: Partial<Record<StoreName, string>>;
  goals?: Goal[];
}

interface Row {
  key: string;
  seed: 'small' | 'large';
  label: string;
  /** Ours on SQLite in issue 26's table (one quiet machine, before the issue's work), req/s. */
  previousSqlite: number;
  /** A goal of issue 26 asks PG-2 for 1.6× PG-1 on it. */
  scalesOut?: boolean;
}

const ROWS: Row[] = [
  {
    key: 'session-create-typical',
    seed: 'large',
    label: 'session create (Dial), typical identity',
    previousSqlite: 645,
    scalesOut: true,
  },
  {
    key: 'session-create-heavy',
    seed: 'large',
    label: 'session create (Dial), heavy identity',
    previousSqlite: 804,
    scalesOut: true,
  },
  { key: 'posture-response-bulk', seed: 'large', label: 'posture-response-bulk', previousSqlite: 591 },
  { key: 'password-login', seed: 'small', label: 'password login', previousSqlite: 184 },
  { key: 'current-identity', seed: 'small', label: 'current-identity', previousSqlite: 5_987 },
  {
    key: 'list-by-name-each',
    seed: 'small',
    label: 'list by name, a different name each request',
    previousSqlite: 2_031,
  },
  {
    key: 'list-by-name-each',
    seed: 'large',
    label: 'list by name, a different name each request',
    previousSqlite: 1_780,
  },
];

const SCALE_OUT = 1.6;

function find(run: StoresRun, store: StoreName, row: Row): ScenarioResult | undefined {
  const identities = row.seed === 'small' ? run.settings.smallSeed : run.settings.largeSeed;
  return run.stores[store]?.find((result) => result.key === row.key && result.identities === identities);
}

/** The rate, or undefined when nothing completed or some answers were not 2xx (a rate of failures is no rate). */
function rate(result: ScenarioResult | undefined): number | undefined {
  if (!result || result.load.totalRequests === 0) return undefined;
  return result.load.requestsPerSecond;
}

const ratio = (over: number | undefined, under: number | undefined) =>
  over === undefined || under === undefined || under === 0 ? undefined : over / under;

export function storesGoals(run: StoresRun): Goal[] {
  const goals: Goal[] = [];
  for (const row of ROWS) {
    const what = `${row.label} @ ${row.seed === 'small' ? run.settings.smallSeed : run.settings.largeSeed}`;
    const pg1 = rate(find(run, 'postgres', row));
    const versusUpstream = ratio(pg1, rate(find(run, 'upstream', row)));
    if (versusUpstream !== undefined)
      goals.push({
        goal: `PG-1 ≥ upstream: ${what}`,
        measured: versusUpstream,
        verdict: versusUpstream >= 1 ? 'pass' : 'miss',
      });
    const scaleOut = ratio(rate(find(run, 'postgres2', row)), pg1);
    if (row.scalesOut && scaleOut !== undefined)
      goals.push({
        goal: `PG-2 ≥ ${SCALE_OUT}× PG-1: ${what}`,
        measured: scaleOut,
        verdict: scaleOut >= SCALE_OUT ? 'pass' : 'miss',
      });
    const sqlite = ratio(rate(find(run, 'sqlite', row)), row.previousSqlite);
    if (sqlite !== undefined)
      goals.push({
        goal: `SQLite ÷ issue 26's SQLite: ${what}`,
        measured: sqlite,
        verdict: 'info',
        note: `then ${row.previousSqlite}/s`,
      });
  }
  return goals;
}

function cell(result: ScenarioResult | undefined): string {
  if (!result) return '—';
  if (result.load.totalRequests === 0)
    return `none completed (probe ${result.probe.status}${result.probe.errorCode ? `: ${result.probe.errorCode.slice(0, 40)}` : ''})`;
  const failed = result.load.non2xx + result.load.errors + result.load.timeouts;
  const shown = `${result.load.requestsPerSecond.toFixed(0)}/s, p99 ${result.load.latencyP99Ms} ms`;
  return failed > 0 ? `${shown} (${failed} failed)` : shown;
}

/** Nothing completed: the CPU spent was spent on no request. */
const cpuCell = (result: ScenarioResult | undefined) =>
  result && result.load.totalRequests > 0 ? result.cpuMsPerRequest.toFixed(2) : '—';

const shownRatio = (value: number | undefined) => (value === undefined ? '—' : value.toFixed(2));

export function formatStoresReport(run: StoresRun): string {
  const measured = STORES.filter((store) => run.stores[store]);
  const header = [
    'scenario',
    ...measured.map((store) => LABELS[store]),
    'PG-1 ÷ upstream',
    'PG-2 ÷ PG-1',
    'SQLite ÷ before',
  ];
  const lines = [
    `stores bench ${run.startedAt} → ${run.finishedAt ?? '?'}${run.quick ? ' (--quick)' : ''}: ${run.settings.durationSeconds} s loads after ${run.settings.warmupSeconds} s warm-up, ${run.settings.connections} connections`,
    '',
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
  ];
  for (const row of ROWS) {
    const seed = row.seed === 'small' ? run.settings.smallSeed : run.settings.largeSeed;
    const pg1 = rate(find(run, 'postgres', row));
    const cells = [
      `${row.label}, ${seed}`,
      ...measured.map((store) => cell(find(run, store, row))),
      shownRatio(ratio(pg1, rate(find(run, 'upstream', row)))),
      shownRatio(ratio(rate(find(run, 'postgres2', row)), pg1)),
      shownRatio(ratio(rate(find(run, 'sqlite', row)), row.previousSqlite)),
    ];
    lines.push(`| ${cells.join(' | ')} |`);
  }
  lines.push(
    '',
    `CPU per request, ms (on PostgreSQL the controller's and its database backends' together):`,
    '',
    `| scenario | ${measured.map((store) => LABELS[store]).join(' | ')} |`,
    `|---|${measured.map(() => '---').join('|')}|`,
  );
  for (const row of ROWS) {
    const seed = row.seed === 'small' ? run.settings.smallSeed : run.settings.largeSeed;
    lines.push(`| ${row.label}, ${seed} | ${measured.map((store) => cpuCell(find(run, store, row))).join(' | ')} |`);
  }
  const busy = measured.map((store) => {
    const results = run.stores[store] ?? [];
    const mean = results.reduce((sum, result) => sum + result.otherCores, 0) / Math.max(1, results.length);
    return `${LABELS[store]} ${mean.toFixed(2)}`;
  });
  lines.push('', `other processes' load during the loads (cores, mean): ${busy.join(', ')}`);
  for (const [store, why] of Object.entries(run.skipped)) lines.push(`${store}: not measured (${why})`);
  lines.push(
    '',
    ...(run.goals ?? []).map(
      (goal) =>
        `${goal.verdict.toUpperCase().padEnd(4)} ${goal.goal}: ${shownRatio(goal.measured)}${goal.note ? ` (${goal.note})` : ''}`,
    ),
  );
  return lines.join('\n');
}

export function writeStoresResults(run: StoresRun, dir: string): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `stores-${run.startedAt.replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify(run, null, 2)}\n`);
  return file;
}
