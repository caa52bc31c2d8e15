// Runs one scenario: a probe request, then autocannon's load from a child process, with the server's CPU and memory
// and whatever else kept the machine busy meanwhile.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { errorCode, httpsRequest, totalCount } from './https-client.js';
import { runLoad } from './load.js';
import type { ScenarioResult } from './report.js';
import { requestHeaders, type Scenario } from './scenarios.js';
import { readMachineBusySeconds, type ServerProcess } from './server-process.js';
import { say, settings } from './settings.js';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

export interface Probe {
  status: number;
  errorCode?: string;
  totalCount?: number;
}

const PROBE_TIMEOUT_MS = 30_000;

/** One request as the load will send it: shows a 501 or 401 before any load is spent on it. */
export async function probeScenario(scenario: Scenario, server: ServerProcess, token: string): Promise<Probe> {
  const body = scenario.body === undefined ? {} : { body: scenario.body };
  const url = `${server.baseUrl}${scenario.path}`;
  // Generous: the server may still be working off the previous scenario's queue. No answer at all is a result
  // (upstream's filtered lists at 100k identities), recorded as status 0 rather than ending the run.
  // A broken connection is a result too (upstream once ended its posture-response-bulk probe with a bad record MAC).
  const probe = await httpsRequest(url, {
    method: scenario.method,
    headers: requestHeaders(scenario, token),
    timeoutMs: PROBE_TIMEOUT_MS,
    ...body,
  }).catch((error: unknown) =>
    error instanceof Error && error.message.startsWith('timeout:')
      ? undefined
      : { failed: error instanceof Error ? error.message : String(error) },
  );
  if (!probe) return { status: 0, errorCode: `no answer within ${PROBE_TIMEOUT_MS / 1000} s` };
  if ('failed' in probe) return { status: 0, errorCode: `no answer: ${probe.failed.slice(0, 120)}` };
  const code = errorCode(probe.body);
  const matches = totalCount(probe.body);
  return {
    status: probe.status,
    ...(code ? { errorCode: code } : {}),
    ...(matches === undefined ? {} : { totalCount: matches }),
  };
}

/** `token` is sent as `zt-session` when the scenario is authenticated; `identities` labels the result. */
export async function runScenario(
  scenario: Scenario,
  server: ServerProcess,
  token: string,
  identities: number,
  probe?: Probe,
): Promise<ScenarioResult> {
  const url = server.baseUrls
    ? server.baseUrls.map((base) => `${base}${scenario.path}`)
    : `${server.baseUrl}${scenario.path}`;
  const headers = requestHeaders(scenario, token);
  const body = scenario.body === undefined ? {} : { body: scenario.body };
  const probed = probe ?? (await probeScenario(scenario, server, token));
  const where = scenario.target === 'hello' ? 'hello server' : `${identities} identities`;
  const code = probed.errorCode ? ` ${probed.errorCode}` : '';
  say(`${scenario.key} (${where}): probe ${probed.status}${code}, loading ${settings.durationSeconds} s…`);
  const cpuBefore = server.cpuSeconds();
  const machineBefore = readMachineBusySeconds();
  const wallBefore = performance.now();
  const { connections, durationSeconds, warmupSeconds } = settings;
  const variants = scenario.variantsFile ? { variantsFile: scenario.variantsFile } : {};
  const load = await runLoad(
    { url, method: scenario.method, headers, ...body, ...variants, connections, durationSeconds, warmupSeconds },
    ROOT,
  );
  const rssMb = server.rssMb();
  const serverCpu = server.cpuSeconds() - cpuBefore;
  const cpuMsPerRequest = (serverCpu * 1000) / Math.max(1, load.totalRequests + load.warmupRequests);
  // Whatever else kept the cores busy (other people's tests on a shared machine) skews req/s far more than CPU/request.
  const otherBusy = readMachineBusySeconds() - machineBefore - serverCpu - load.loadCpuSeconds;
  const otherCores = Math.max(0, otherBusy / ((performance.now() - wallBefore) / 1000));
  say(
    `  ${load.requestsPerSecond.toFixed(0)} req/s, p50 ${load.latencyP50Ms} ms, p99 ${load.latencyP99Ms} ms, ` +
      `non-2xx ${load.non2xx}, server CPU ${cpuMsPerRequest.toFixed(3)} ms/req, RSS ${rssMb.toFixed(0)} MB, ` +
      `other load ${otherCores.toFixed(2)} cores`,
  );
  return {
    key: scenario.key,
    target: scenario.target,
    identities: scenario.target === 'hello' ? 0 : identities,
    method: scenario.method,
    path: scenario.path,
    probe: probed,
    load,
    cpuMsPerRequest,
    otherCores,
    rssMb,
  };
}
