// Ours ÷ upstream: per scenario the throughput ratio (and the same from server CPU per request), and for the scale
// model's writes the speed ratio of the timed changes. Above 1 means ours is faster.
import type { Goal, ScenarioResult } from './report.js';
import { describeUnavailable, type ScaleResult } from './scale-phase.js';
import type { UpstreamRun } from './upstream-phase.js';

export interface Comparison {
  what: string;
  ours: number;
  upstream: number;
  /** ours ÷ upstream for rates; upstream ÷ ours for times: above 1, ours is faster. */
  ratio: number;
  /** The same from server CPU (per request or per change). */
  cpuRatio?: number;
  unit: 'req/s' | 'ms';
}

export function compareWithUpstream(
  ours: ScenarioResult[],
  scale: ScaleResult | undefined,
  upstream: UpstreamRun,
): Comparison[] {
  const comparisons: Comparison[] = [];
  for (const theirs of upstream.scenarios) {
    const mine = ours.find(
      (s) => s.target === 'controller' && s.key === theirs.key && s.identities === theirs.identities,
    );
    if (!mine) continue;
    comparisons.push({
      what: `${theirs.key} @ ${theirs.identities}`,
      ours: mine.load.requestsPerSecond,
      upstream: theirs.load.requestsPerSecond,
      ratio: mine.load.requestsPerSecond / theirs.load.requestsPerSecond,
      cpuRatio: theirs.cpuMsPerRequest / mine.cpuMsPerRequest,
      unit: 'req/s',
    });
  }
  const changes = { ours: scale?.attributeChanges, upstream: upstream.attributeChanges };
  if (changes.ours && changes.upstream) {
    comparisons.push({
      what: 'role-attribute change (mean)',
      ours: changes.ours.meanMs,
      upstream: changes.upstream.meanMs,
      ratio: changes.upstream.meanMs / changes.ours.meanMs,
      cpuRatio: changes.upstream.cpuMsPerChange / changes.ours.cpuMsPerChange,
      unit: 'ms',
    });
  }
  const policy = { ours: scale?.policyChanges, upstream: upstream.policyChanges };
  if (policy.ours && policy.upstream) {
    const mean = (steps: Array<{ ms: number }>) =>
      steps.reduce((sum, step) => sum + step.ms, 0) / Math.max(1, steps.length);
    const cpu = (steps: Array<{ usage: { serverCpuMs: number } }>) =>
      steps.reduce((sum, step) => sum + step.usage.serverCpuMs, 0) / Math.max(1, steps.length);
    comparisons.push({
      what: '5% policy service-role change (mean)',
      ours: mean(policy.ours.steps),
      upstream: mean(policy.upstream.steps),
      ratio: mean(policy.upstream.steps) / mean(policy.ours.steps),
      cpuRatio: cpu(policy.upstream.steps) / cpu(policy.ours.steps),
      unit: 'ms',
    });
  }
  return comparisons;
}

export function upstreamGoals(comparisons: Comparison[], upstream: UpstreamRun): Goal[] {
  if (upstream.skipped)
    return [
      {
        goal: 'ours ÷ upstream v1.1.8',
        measured: undefined,
        verdict: 'info',
        note: `upstream not run: ${upstream.skipped}`,
      },
    ];
  const failed = (key: string) =>
    upstream.scenarios.find(
      (s) => `${s.key} @ ${s.identities}` === key && s.load.non2xx + s.load.errors + s.load.timeouts > 0,
    );
  return comparisons.map((c) => ({
    goal: `ours ÷ upstream: ${c.what}`,
    measured: c.ratio,
    verdict: 'info' as const,
    note:
      `ours ${format(c.ours, c.unit)}, upstream ${format(c.upstream, c.unit)}` +
      `${c.cpuRatio === undefined ? '' : `; by server CPU ${c.cpuRatio.toFixed(2)}`}` +
      `${failed(c.what) ? '; upstream answered non-2xx during the load' : ''}`,
  }));
}

export function formatUpstream(upstream: UpstreamRun | undefined): string[] {
  if (!upstream) return [];
  if (upstream.skipped) return [`upstream v1.1.8: not run (${upstream.skipped})`];
  const seeding = upstream.seeding.map(
    (s) =>
      `${s.what} ×${s.count} in ${(s.ms / 1000).toFixed(1)} s (${((s.count * 1000) / Math.max(1, s.ms)).toFixed(0)}/s)`,
  );
  const missing = upstream.unavailable.map(describeUnavailable);
  return [
    `upstream v1.1.8 seeding through its API: ${seeding.join(', ') || 'none'}`,
    `upstream RSS: idle ${upstream.rssMb.idle?.toFixed(0) ?? '-'} MB, peak ${upstream.rssMb.peak?.toFixed(0) ?? '-'} MB`,
    ...(missing.length ? [`upstream not measured: ${missing.join(', ')}`] : []),
  ];
}

const format = (value: number, unit: 'req/s' | 'ms') =>
  unit === 'ms' ? `${value.toFixed(2)} ms` : `${value.toFixed(0)} req/s`;
