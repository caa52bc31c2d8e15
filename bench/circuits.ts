// `npm run bench:circuits`: circuits beside upstream (issue 23 item 7). In one run, for our controller and for upstream
// v1.1.8, the same upstream v1.1.8 router and the same Go SDK programs: `ziti demo echo-server` hosts an echo service,
// BENCH_CIRCUITS (default 200) `ziti demo zcat` dials run BENCH_CONCURRENCY (default 25) at a time, each sending a line
// and reading it back. Reported: the SDK's dial time (from its "dialing" log line to "connected": authentication,
// service and session look-ups, router connection and the circuit), the whole zcat run, circuits per second, the
// controller's CPU per circuit (/proc/<pid>/stat before and after), and binds per second (echo-server restarts until
// its terminator shows, BENCH_BINDS, default 10). Ratios are ours ÷ upstream. Results: bench/results/circuits.json.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readCpuSeconds } from './server-process.js';
import { dialMs, percentile } from './sdk-dial.js';
import { ROOT } from './scenario-run.js';
import {
  echoService,
  enrolledIdentity,
  findZiti,
  openPolicies,
  startController,
  startEchoServer,
  startRouter,
  tempDir,
  zcat,
  type ControllerKind,
} from '../test/interop/network.js';

const CIRCUITS = Number(process.env.BENCH_CIRCUITS ?? 200);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 25);
const BINDS = Number(process.env.BENCH_BINDS ?? 10);
// `ours` alone for a profiling run (ZITI_BENCH_CPU_PROF): the ratios need both.
const TARGETS = (process.env.BENCH_CIRCUIT_TARGETS ?? 'ours,upstream')
  .split(',')
  .filter((kind): kind is ControllerKind => kind === 'ours' || kind === 'upstream');

interface Figures {
  circuits: number;
  failed: number;
  dialP50Ms: number;
  dialP99Ms: number;
  runP50Ms: number;
  runP99Ms: number;
  circuitsPerSecond: number;
  controllerCpuMsPerCircuit: number;
  bindMeanMs: number;
  bindsPerSecond: number;
  firstFailure?: string;
}

async function measure(ziti: string, kind: ControllerKind): Promise<Figures> {
  const work = tempDir(`ziti-bench-circuits-${kind}-`);
  const { controller, ctrlEndpoint } = await startController(kind, work);
  const router = await startRouter(ziti, controller, ctrlEndpoint, work);
  try {
    await openPolicies(controller);
    const host = await enrolledIdentity(ziti, controller, 'bench-host', work);
    const client = await enrolledIdentity(ziti, controller, 'bench-client', work);
    const serviceId = await echoService(controller, 'echo', host.id, client.id, true);
    let echo = await startEchoServer(ziti, controller, host.file, 'echo', serviceId, work);
    const dial = (index: number) =>
      zcat(ziti, client.file, 'echo', Buffer.from(`circuit ${index}\n`), work, 120_000, [
        '-v',
        '--log-formatter',
        'json',
      ]);
    for (let index = 0; index < 3; index += 1) await dial(-1 - index); // warm-up

    const dials: number[] = [];
    const runs: number[] = [];
    let failed = 0;
    let firstFailure: string | undefined;
    let next = 0;
    const cpuBefore = readCpuSeconds(controller.pid());
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < CIRCUITS) {
          const index = next++;
          const reply = await dial(index);
          const ms = dialMs(reply.log);
          if (reply.code !== 0 || reply.output.toString() !== `circuit ${index}\n` || ms === undefined) {
            failed += 1;
            firstFailure ??= reply.log.slice(-1500);
            continue;
          }
          dials.push(ms);
          runs.push(reply.ms);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const cpuMs = (readCpuSeconds(controller.pid()) - cpuBefore) * 1000;

    const binds: number[] = [];
    for (let index = 0; index < BINDS; index += 1) {
      const old = echo.terminatorId;
      await echo.program.stop();
      const bindStarted = performance.now();
      echo = await startEchoServer(ziti, controller, host.file, 'echo', serviceId, work, [old]);
      binds.push(performance.now() - bindStarted);
    }
    await echo.program.stop();
    const succeeded = CIRCUITS - failed;
    const bindMeanMs = binds.reduce((sum, value) => sum + value, 0) / Math.max(1, binds.length);
    return {
      circuits: succeeded,
      failed,
      dialP50Ms: percentile(dials, 50),
      dialP99Ms: percentile(dials, 99),
      runP50Ms: Math.round(percentile(runs, 50)),
      runP99Ms: Math.round(percentile(runs, 99)),
      circuitsPerSecond: Number((succeeded / seconds).toFixed(2)),
      controllerCpuMsPerCircuit: Number((cpuMs / Math.max(1, succeeded)).toFixed(2)),
      bindMeanMs: Math.round(bindMeanMs),
      bindsPerSecond: Number((1000 / bindMeanMs).toFixed(2)),
      ...(firstFailure ? { firstFailure } : {}),
    };
  } finally {
    await router.program.stop();
    await controller.stop();
    if (!process.env.ZITI_BENCH_KEEP) rmSync(work, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const ziti = findZiti();
  if (ziti === undefined) {
    process.stdout.write('bench:circuits skipped: no ziti v1.1.8 binary (set ZITI_UPSTREAM_BIN)\n');
    return;
  }
  const results: Partial<Record<ControllerKind, Figures>> = {};
  for (const kind of TARGETS) {
    process.stdout.write(`${kind}: ${CIRCUITS} circuits, ${CONCURRENCY} at a time…\n`);
    results[kind] = await measure(ziti, kind);
    process.stdout.write(`${kind}: ${JSON.stringify(results[kind])}\n`);
  }
  const { ours, upstream } = results;
  if (!ours || !upstream) return;
  const ratio = (key: keyof Figures) => Number(((ours[key] as number) / (upstream[key] as number)).toFixed(2));
  const ratios = Object.fromEntries(
    (
      [
        'dialP50Ms',
        'dialP99Ms',
        'runP50Ms',
        'runP99Ms',
        'circuitsPerSecond',
        'controllerCpuMsPerCircuit',
        'bindsPerSecond',
      ] as const
    ).map((key) => [key, ratio(key)]),
  );
  const report = {
    circuits: CIRCUITS,
    concurrency: CONCURRENCY,
    binds: BINDS,
    ours,
    upstream,
    oursOverUpstream: ratios,
  };
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
  writeFileSync(join(ROOT, 'bench', 'results', 'circuits.json'), `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(`ours ÷ upstream: ${JSON.stringify(ratios)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
