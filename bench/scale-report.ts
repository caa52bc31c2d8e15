// The scale phase's goals and its part of the printed report.
import type { Goal, ScenarioResult } from './report.js';
import { describeUnavailable, type ScaleResult } from './scale-phase.js';
import type { LinkCheck } from './scale-verify.js';

const ATTRIBUTE_CHANGE_MS = 5;
const POLICY_LINKS_PER_SECOND = 500_000;
const RSS_MB = 400;

export function evaluateScaleGoals(scale: ScaleResult, scenarios: ScenarioResult[]): Goal[] {
  const goals: Goal[] = [];
  const ceiling = scenarios.find((s) => s.key === 'ceiling')?.load.requestsPerSecond;
  for (const key of ['client-services-typical', 'client-services-heavy', 'service-updates']) {
    const goal = `${key} at the scale model: req/s (÷ ceiling in the note)`;
    const missing = scale.unavailable.find((u) => u.key === key);
    const measured = scenarios.find((s) => s.key === key && s.identities === scale.identities);
    if (missing || !measured) {
      const why = missing
        ? `not measured: answered ${missing.status}${missing.errorCode ? ` ${missing.errorCode}` : ''}`
        : 'not run';
      goals.push({ goal, measured: undefined, verdict: 'info', note: why });
      continue;
    }
    const { load, probe, cpuMsPerRequest } = measured;
    const share = ceiling ? `, ${((load.requestsPerSecond / ceiling) * 100).toFixed(1)}% of the ceiling` : '';
    const failures = load.non2xx + load.errors + load.timeouts;
    const listed = probe.totalCount === undefined ? '' : `${probe.totalCount} services listed, `;
    const note = `${listed}p50 ${load.latencyP50Ms} ms, p99 ${load.latencyP99Ms} ms, ${cpuMsPerRequest.toFixed(2)} CPU ms/req${share}${failures ? `, ${failures} failures` : ''}`;
    goals.push({ goal, measured: load.requestsPerSecond, verdict: 'info', note });
  }

  const changes = scale.attributeChanges;
  goals.push({
    goal: `role-attribute change on one identity ≤ ${ATTRIBUTE_CHANGE_MS} ms (mean, through the API)`,
    measured: changes?.meanMs,
    verdict: changes && changes.failures === 0 && changes.meanMs <= ATTRIBUTE_CHANGE_MS ? 'pass' : 'miss',
    note: changes
      ? `p50 ${changes.p50Ms.toFixed(2)} ms, p99 ${changes.p99Ms.toFixed(2)} ms, max ${changes.maxMs.toFixed(1)} ms, ${changes.count} changes, ` +
        `server CPU ${changes.cpuMsPerChange.toFixed(2)} ms/change${noise(changes.otherCores)}${changes.failures ? `, ${changes.failures} failed (${changes.firstFailure})` : ''}`
      : 'not run',
  });

  const policy = scale.policyChanges;
  const failedSteps = policy?.steps.filter((step) => step.status !== 200).length ?? 0;
  goals.push({
    goal: `5% policy service-role change ≥ ${POLICY_LINKS_PER_SECOND / 1000}k identity–service links/s`,
    measured: policy?.linksPerSecond,
    verdict: policy && failedSteps === 0 && policy.linksPerSecond >= POLICY_LINKS_PER_SECOND ? 'pass' : 'miss',
    note: policy
      ? `${policy.steps.map((s) => `${s.change} ${s.linksChanged} in ${s.ms.toFixed(0)} ms`).join(', ')}; ` +
        `by server CPU ${(policy.linksPerCpuSecond / 1000).toFixed(0)}k/s; no-op PATCH ${policy.noLinkChangeMs.toFixed(1)} ms` +
        `${noise(Math.max(...policy.steps.map((s) => s.usage.otherCores)))}${failedSteps ? `; ${failedSteps} failed` : ''}`
      : 'not run',
  });

  const peak = scale.rssMb.peak;
  goals.push({
    goal: `controller RSS at the scale model ≤ ${RSS_MB} MB (peak)`,
    measured: peak,
    verdict: peak !== undefined && peak <= RSS_MB ? 'pass' : 'miss',
    note: `idle ${scale.rssMb.idle.toFixed(0)} MB, after reads ${scale.rssMb.afterReads?.toFixed(0) ?? '-'} MB, after writes ${scale.rssMb.afterWrites?.toFixed(0) ?? '-'} MB`,
  });

  for (const [when, check] of [
    ['after seeding', scale.checkAfterSeeding],
    ['after the measured writes', scale.checkAfterRun],
  ] as const) {
    goals.push(checkGoal(when, check));
  }
  return goals;
}

const NOISY_CORES = 0.25;

/** Wall-clock figures on a machine others were using say little: point at the CPU figure instead. */
function noise(otherCores: number): string {
  return otherCores > NOISY_CORES ? `; OTHER LOAD ${otherCores.toFixed(2)} cores: trust the CPU figure` : '';
}

function checkGoal(when: string, check: LinkCheck | undefined): Goal {
  const goal = `links agree with a from-scratch evaluation ${when}`;
  if (!check) return { goal, measured: undefined, verdict: 'miss', note: 'not run' };
  const note = `integrity scan of every derived row in ${(check.ms / 1000).toFixed(1)} s${check.differences ? `; first: ${check.mismatches[0]}` : ''}`;
  return { goal, measured: check.differences, verdict: check.differences === 0 ? 'pass' : 'miss', note };
}

export function formatScale(scale: ScaleResult): string[] {
  const { model, links, seeding } = scale;
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  return [
    `scale model (factor ${scale.factor}): ${scale.identities} identities + 1 heavy, ${model.services} services, ` +
      `${model.servicePolicies} + 1 service policies, ${model.edgeRouters} edge routers, ${model.edgeRouterPolicies} edge router policies, ` +
      `${model.serviceEdgeRouterPolicies} service edge router policies`,
    `  seeding: identities ${seconds(seeding.identitiesMs)}, other entities and policies ${seconds(seeding.entitiesMs)}`,
    `  links by the engine: ${seconds(links.ms)} for ${links.policies} policies (` +
      `${Object.entries(links.msByKind)
        .map(([kind, ms]) => `${kind} ${seconds(ms)}`)
        .join(', ')}), ` +
      `${((links.rows.identity_services ?? 0) / (links.ms / 1000) / 1000).toFixed(0)}k identity–service rows/s`,
    `  link rows: ${Object.entries(links.rows)
      .map(([table, n]) => `${table} ${n}`)
      .join(', ')}`,
    ...scale.unavailable.map((u) => `  NOT MEASURED: ${describeUnavailable(u)} (${u.path})`),
  ];
}
