// Runs one autocannon load in its own process, so the load generator never shares an event loop with the
// harness; prints the figures as one JSON line on stdout. Started by bench/load.ts with the LoadSpec in the environment.
import { readFileSync } from 'node:fs';
import autocannon, { type RequestParams } from 'autocannon';
import { LOAD_SPEC_VARIABLE, type LoadFigures, type LoadSpec, type RequestVariants } from './load.js';

const spec = JSON.parse(process.env[LOAD_SPEC_VARIABLE] ?? '') as LoadSpec;
const variants = spec.variantsFile
  ? (JSON.parse(readFileSync(spec.variantsFile, 'utf8')) as RequestVariants)
  : undefined;
let sent = 0;
/** The next combination of token, body and path (see RequestVariants). */
function nextVariant(request: RequestParams): RequestParams {
  const { tokens, bodies, paths, tokensInTurn } = variants!;
  const perToken = bodies?.length ?? 1;
  const index = sent % ((tokens?.length ?? 1) * perToken);
  const path = paths?.[sent % paths.length];
  sent++;
  // Either way every (token, body) combination comes once before any repeats.
  const [token, body] =
    tokensInTurn && tokens
      ? [index % tokens.length, Math.floor(index / tokens.length)]
      : [Math.floor(index / perToken), index % perToken];
  const headers = tokens ? { ...request.headers, 'zt-session': tokens[token]! } : request.headers;
  return { ...request, headers, ...(bodies ? { body: bodies[body]! } : {}), ...(path ? { path } : {}) };
}

// autocannon keeps connections alive (HTTP/1.1) and, over https, does not verify the server's certificate.
const result = await autocannon({
  url: spec.url,
  method: spec.method,
  headers: spec.headers,
  body: spec.bodyFile === undefined ? spec.body : readFileSync(spec.bodyFile, 'utf8'),
  ...(variants ? { requests: [{ setupRequest: nextVariant }] } : {}),
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
  ...(variants?.tokens && variants.bodies
    ? { repeated: Math.max(0, sent - variants.tokens.length * variants.bodies.length) }
    : {}),
};
process.stdout.write(`${JSON.stringify(figures)}\n`);
