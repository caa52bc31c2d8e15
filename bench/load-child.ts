// Runs one autocannon load in its own process, so the load generator never shares an event loop with the
// harness; prints the figures as one JSON line on stdout. Started by bench/load.ts with the LoadSpec in the environment.
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { LOAD_SPEC_VARIABLE, type LoadFigures, type LoadSpec } from './load.js';

const spec = JSON.parse(process.env[LOAD_SPEC_VARIABLE] ?? '') as LoadSpec;
// autocannon keeps connections alive (HTTP/1.1) and, over https, does not verify the server's certificate.
const result = await autocannon({
  url: spec.url,
  method: spec.method,
  headers: spec.headers,
  body: spec.bodyFile === undefined ? spec.body : readFileSync(spec.bodyFile, 'utf8'),
  connections: spec.connections,
  pipelining: 1,
  duration: spec.durationSeconds,
  timeout: 10,
  ...(spec.warmupSeconds > 0 ? { warmup: { connections: spec.connections, duration: spec.warmupSeconds } } : {}),
});

const cpu = process.cpuUsage();
const statusCodes: Record<string, number> = {};
for (const [code, stats] of Object.entries(result.statusCodeStats)) statusCodes[code] = stats.count;
const figures: LoadFigures = {
  requestsPerSecond: result.requests.average,
  totalRequests: result.requests.total,
  warmupRequests: result.warmup?.requests.total ?? 0,
  latencyP50Ms: result.latency.p50,
  latencyP99Ms: result.latency.p99,
  latencyMeanMs: result.latency.average,
  non2xx: result.non2xx,
  errors: result.errors,
  timeouts: result.timeouts,
  statusCodes,
  durationSeconds: result.duration,
  loadCpuSeconds: (cpu.user + cpu.system) / 1e6,
};
process.stdout.write(`${JSON.stringify(figures)}\n`);
