// The cost of watching the controller: current-identity with the access log and metrics off, then on (one log line
// per request to a file, as in production, and metrics scraped), in alternating rounds. Each variant's best round
// counts: other load on a shared machine only ever slows a round down.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startController } from './controller-process.js';
import { ADMIN_PASSWORD, ADMIN_USERNAME } from './controller-process.js';
import { loginAdmin } from './https-client.js';
import type { Goal, ScenarioResult } from './report.js';
import * as scenarios from './scenarios.js';
import { runScenario } from './scenario-run.js';
import { freePort } from './server-process.js';
import { say } from './settings.js';

export interface ObservabilityStart {
  home: string;
  port: number;
  rounds: number;
}

export interface ObservabilityResult {
  plain: ScenarioResult;
  observed: ScenarioResult;
  /** Of the observed rounds' requests: how many the access log holds and the metrics counted. */
  logLines: number;
  counted: number;
  requests: number;
}

const MAX_COST = 0.05;

export async function runObservabilityPhase(start: ObservabilityStart): Promise<ObservabilityResult> {
  const rounds: Record<'plain' | 'observed', ScenarioResult[]> = { plain: [], observed: [] };
  let logLines = 0;
  let counted = 0;
  let requests = 0;
  for (let round = 0; round < start.rounds; round++) {
    for (const variant of ['plain', 'observed'] as const) {
      const metricsPort = await freePort();
      const logFile = join(start.home, `access-${round}.log`);
      const args =
        variant === 'plain'
          ? ['--access-log', 'false']
          : ['--access-log', 'true', '--log-level', 'info', '--metrics-address', `127.0.0.1:${metricsPort}`];
      const controller = await startController(start.home, start.port, {
        args,
        ...(variant === 'observed' ? { stdoutFile: logFile } : {}),
      });
      try {
        const token = await loginAdmin(controller.baseUrl, ADMIN_USERNAME, ADMIN_PASSWORD);
        const result = await runScenario(
          { ...scenarios.currentIdentity, key: `current-identity-${variant}` },
          controller,
          token,
          0,
        );
        rounds[variant].push(result);
        if (variant === 'observed') {
          const scraped = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
          const sample =
            /^ziti_http_requests_total\{api="client",operation="getCurrentIdentity",method="GET",status="200"\} (\d+)$/m.exec(
              scraped,
            );
          counted += Number(sample?.[1] ?? 0);
          requests += result.load.totalRequests + result.load.warmupRequests;
        }
      } finally {
        await controller.stop();
      }
      if (variant === 'observed')
        logLines += readFileSync(logFile, 'utf8')
          .split('\n')
          .filter((line) => line.includes('"operation":"getCurrentIdentity"')).length;
    }
  }
  const best = (results: ScenarioResult[]) =>
    results.reduce((a, b) => (b.load.requestsPerSecond > a.load.requestsPerSecond ? b : a));
  const result = { plain: best(rounds.plain), observed: best(rounds.observed), logLines, counted, requests };
  say(
    `access log + metrics: ${result.observed.load.requestsPerSecond.toFixed(0)} vs ${result.plain.load.requestsPerSecond.toFixed(0)} req/s; ${logLines} log lines and ${counted} counted for ${requests} requests`,
  );
  return result;
}

/** The cost as a share of current-identity's rate: by req/s, and by server CPU per request. */
export function evaluateObservabilityGoal(result: ObservabilityResult): Goal {
  const { plain, observed } = result;
  const cost = 1 - observed.load.requestsPerSecond / plain.load.requestsPerSecond;
  const cpuCost = observed.cpuMsPerRequest / plain.cpuMsPerRequest - 1;
  // Probe and login requests add a few lines and counts beyond the load's own.
  const isComplete = result.logLines >= result.requests && result.counted >= result.requests;
  const note =
    `by CPU/request: ${(cpuCost * 100).toFixed(1)}% (${observed.cpuMsPerRequest.toFixed(4)} vs ${plain.cpuMsPerRequest.toFixed(4)} ms); ` +
    `${result.logLines} log lines, ${result.counted} counted, for ${result.requests} loaded requests${isComplete ? '' : ' — INCOMPLETE'}`;
  return {
    goal: `access log + metrics cost < ${MAX_COST * 100}% of current-identity req/s`,
    measured: cost,
    cpuRatio: 1 + cpuCost,
    verdict: cost < MAX_COST && isComplete ? 'pass' : 'miss',
    note,
  };
}
