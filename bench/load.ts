// Starts autocannon in a child process (bench/load-child.ts) for one scenario and reads back its figures.
import { spawn } from 'node:child_process';
import { onCleanup } from './cleanup.js';

export const LOAD_SPEC_VARIABLE = 'BENCH_LOAD_SPEC';

export interface LoadSpec {
  /** Several: the connections are spread evenly over them (instances of one controller on one database). */
  url: string | string[];
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  headers: Record<string, string>;
  body?: string;
  /** A body too large for the environment the spec travels in (Linux caps one variable at 128 KiB). */
  bodyFile?: string;
  connections: number;
  durationSeconds: number;
  /** A run of the same load before the measured one, so JIT and caches are warm; 0 for none. */
  warmupSeconds: number;
  /**
   * A JSON file of `RequestVariants`: each request takes the next combination instead of the fixed headers and
   * body (a session create must not repeat one already made, or it measures the reuse).
   */
  variantsFile?: string;
}

/**
 * Request i (warm-up included) sends `tokens[⌊i / bodies.length⌋]` as `zt-session` with `bodies[i mod bodies.length]`;
 * after tokens × bodies requests it starts over, and the figures count those as `repeated`. Without tokens the
 * scenario's token goes; without bodies its body. With `paths`, request i asks for `paths[i mod paths.length]`.
 */
export interface RequestVariants {
  tokens?: string[];
  bodies?: string[];
  paths?: string[];
  /**
   * Request i sends `tokens[i mod tokens.length]` with `bodies[⌊i / tokens.length⌋ mod bodies.length]` instead: the
   * requests in flight at once are of different API sessions, as those of a network of SDKs dialling at once are.
   */
  tokensInTurn?: boolean;
}

export interface LoadFigures {
  /** Mean of the per-second request counts. */
  requestsPerSecond: number;
  totalRequests: number;
  /** Requests sent during the warm-up, which the server's CPU figure has to include. */
  warmupRequests: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  latencyMeanMs: number;
  non2xx: number;
  /** Connection errors and timeouts, not HTTP statuses. */
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  durationSeconds: number;
  /** CPU time the load generator's process used over its whole life, in seconds. */
  loadCpuSeconds: number;
  /** With variants: requests sent after every combination had been used once. */
  repeated?: number;
}

export function runLoad(spec: LoadSpec, cwd: string): Promise<LoadFigures> {
  return runBenchChild<LoadFigures>('bench/load-child.ts', LOAD_SPEC_VARIABLE, spec, cwd, 'load child');
}

/**
 * Runs a bench script in a process of its own, its spec in the environment rather than argv (so a session token
 * does not show in `ps`), and reads its figures from the last line it prints.
 */
export async function runBenchChild<T>(
  script: string,
  specVariable: string,
  spec: unknown,
  cwd: string,
  what: string,
): Promise<T> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd,
    env: { ...process.env, [specVariable]: JSON.stringify(spec) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const removeCleanup = onCleanup(
    () => void child.kill('SIGTERM'),
    () => child.kill('SIGKILL'),
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', resolve);
  });
  removeCleanup();
  const line = stdout.trim().split('\n').at(-1);
  if (code !== 0 || !line) throw new Error(`${what} exited with ${code}: ${stderr.slice(-2000)}`);
  return JSON.parse(line) as T;
}
