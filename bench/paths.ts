// `npm run bench:paths`: path-setup time over 0, 1 and 2 links, ours beside upstream v1.1.8 in one run (issue 24).
// The same four upstream v1.1.8 routers under each controller, link groups deciding who dials whom:
//
//   A (edge; dials groups default + near) ── C (edge; listens in group near)      one hop:  A → C
//   A ── T (transit, no edge listener; listens in default) ── B (edge; dials T)   two hops: A → T → B
//   (C also dials T: four links in all)
//
// The dialling identity may use A only; the `local`, `one-hop` and `two-hops` echo services are hosted by identities
// allowed only on A, C and B. For each, BENCH_PATH_DIALS (default 30) `ziti demo zcat` dials one after another (after
// 3 warm-up dials), each sending a line and reading it back; reported per path and controller: the SDK's dial time
// (its "dialing" to "connected" log lines: the session look-up, the router connection and the circuit: the Route to
// every router of the path and their answers), the whole zcat run (to the echoed line and exit), p50 and p95, and
// for ours the controller's own circuit set-up time (its "circuit created" log line's setupMs). Ratios are ours ÷
// upstream. Results: bench/results/paths.json.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './scenario-run.js';
import { dialMs, dialSteps, percentile } from './sdk-dial.js';
import { findZiti, readLog, tempDir, zcat, type ControllerKind } from '../test/interop/network.js';
import { holdCircuit, startLinkedNetwork, type LinkedNetwork, type Topology } from '../test/interop/linked-network.js';

const DIALS = Number(process.env.BENCH_PATH_DIALS ?? 30);
const PATH_NAMES = ['local', 'one-hop', 'two-hops'] as const;
type PathName = (typeof PATH_NAMES)[number];
/** How many links each service's circuits cross. */
const PATHS: Record<PathName, number> = { local: 0, 'one-hop': 1, 'two-hops': 2 };

const TOPOLOGY: Topology = {
  routers: [
    { name: 'router-t', edge: false, linkGroups: ['default'] },
    { name: 'router-c', linkGroups: ['near'] },
    { name: 'router-a', dialerGroups: ['default', 'near'] },
    { name: 'router-b' },
  ],
  clientRouter: 'router-a',
  services: { local: 'router-a', 'one-hop': 'router-c', 'two-hops': 'router-b' },
  links: 4,
};

interface PathFigures {
  links: number;
  /** The routers the path took (a circuit held open and read from the fabric API before the dials). */
  routers: string[];
  dials: number;
  failed: number;
  dialP50Ms: number;
  dialP95Ms: number;
  runP50Ms: number;
  runP95Ms: number;
  /** Ours only: the controller's set-up time of each circuit (dial request to every Route answered). */
  controllerSetupP50Ms?: number;
  controllerSetupP95Ms?: number;
  /** The SDK's log of the median dial, from "dialing" to "connected" (where the time goes). */
  medianDialSteps: string[];
  firstFailure?: string;
}

/** Our controller's "circuit created" lines for a service: their setupMs, in order. */
function controllerSetupMs(network: LinkedNetwork, service: string): number[] {
  return readLog(network.controller.logFile)
    .split('\n')
    .filter((line) => line.includes('"msg":"circuit created"') && line.includes(`"service":"${service}"`))
    .map((line) => Number((JSON.parse(line) as { setupMs?: number }).setupMs)) // a pino line of ours, read for one field
    .filter((value) => Number.isFinite(value));
}

async function measurePath(ziti: string, network: LinkedNetwork, service: PathName): Promise<PathFigures> {
  const held = await holdCircuit(ziti, network, service);
  await held.program.stop();
  if (held.routers.length !== PATHS[service] + 1)
    throw new Error(
      `${network.kind}: the ${service} circuit took ${held.routers.join(' → ')}, not ${PATHS[service]} links`,
    );
  const dial = (index: number) =>
    zcat(ziti, network.client.file, service, Buffer.from(`${service} ${index}\n`), network.work, 60_000, [
      '-v',
      '--log-formatter',
      'json',
    ]);
  for (let index = 0; index < 3; index += 1) await dial(-1 - index); // warm-up
  const setupBefore = network.kind === 'ours' ? controllerSetupMs(network, service).length : 0;
  const dials: number[] = [];
  const logs: string[] = [];
  const runs: number[] = [];
  let failed = 0;
  let firstFailure: string | undefined;
  for (let index = 0; index < DIALS; index += 1) {
    const reply = await dial(index);
    const ms = dialMs(reply.log);
    if (reply.code !== 0 || reply.output.toString() !== `${service} ${index}\n` || ms === undefined) {
      failed += 1;
      firstFailure ??= reply.log.slice(-1500);
      continue;
    }
    dials.push(ms);
    logs.push(reply.log);
    runs.push(reply.ms);
  }
  const figures: PathFigures = {
    links: PATHS[service],
    routers: held.routers,
    dials: dials.length,
    failed,
    dialP50Ms: percentile(dials, 50),
    dialP95Ms: percentile(dials, 95),
    runP50Ms: Math.round(percentile(runs, 50)),
    runP95Ms: Math.round(percentile(runs, 95)),
    medianDialSteps: dialSteps(logs[dials.indexOf(percentile(dials, 50))] ?? ''),
    ...(firstFailure ? { firstFailure } : {}),
  };
  if (network.kind === 'ours') {
    const setup = controllerSetupMs(network, service).slice(setupBefore);
    Object.assign(figures, {
      controllerSetupP50Ms: percentile(setup, 50),
      controllerSetupP95Ms: percentile(setup, 95),
    });
  }
  process.stdout.write(`${network.kind} ${service}: ${JSON.stringify({ ...figures, medianDialSteps: undefined })}\n`);
  return figures;
}

async function measure(ziti: string, kind: ControllerKind): Promise<Record<PathName, PathFigures>> {
  const work = tempDir(`ziti-bench-paths-${kind}-`);
  const network = await startLinkedNetwork(ziti, kind, work, TOPOLOGY);
  try {
    // One path after the other (object literal properties are evaluated in order), never two at once.
    return {
      local: await measurePath(ziti, network, 'local'),
      'one-hop': await measurePath(ziti, network, 'one-hop'),
      'two-hops': await measurePath(ziti, network, 'two-hops'),
    };
  } finally {
    await network.stop();
    if (!process.env.ZITI_BENCH_KEEP) rmSync(work, { recursive: true, force: true });
  }
}

const ratio = (ours: number, upstream: number) => Number((ours / upstream).toFixed(2));

async function main(): Promise<void> {
  const ziti = findZiti();
  if (ziti === undefined) {
    process.stdout.write('bench:paths skipped: no ziti v1.1.8 binary (set ZITI_UPSTREAM_BIN)\n');
    return;
  }
  const ours = await measure(ziti, 'ours');
  const upstream = await measure(ziti, 'upstream');
  const rows = PATH_NAMES.map((path) => {
    const [o, u] = [ours[path], upstream[path]];
    return {
      path,
      links: PATHS[path],
      dialP50: `${o.dialP50Ms} / ${u.dialP50Ms} ms (${ratio(o.dialP50Ms, u.dialP50Ms)}×)`,
      dialP95: `${o.dialP95Ms} / ${u.dialP95Ms} ms (${ratio(o.dialP95Ms, u.dialP95Ms)}×)`,
      runP50: `${o.runP50Ms} / ${u.runP50Ms} ms (${ratio(o.runP50Ms, u.runP50Ms)}×)`,
      runP95: `${o.runP95Ms} / ${u.runP95Ms} ms (${ratio(o.runP95Ms, u.runP95Ms)}×)`,
      oursSetupP50P95: `${o.controllerSetupP50Ms} / ${o.controllerSetupP95Ms} ms`,
      failed: `${o.failed} / ${u.failed}`,
    };
  });
  process.stdout.write(`\npath-setup times, ours / upstream (ours ÷ upstream), ${DIALS} dials each:\n`);
  console.table(rows);
  const report = {
    dials: DIALS,
    ours,
    upstream,
    oursOverUpstream: Object.fromEntries(
      PATH_NAMES.map((path) => [
        path,
        {
          dialP50Ms: ratio(ours[path].dialP50Ms, upstream[path].dialP50Ms),
          dialP95Ms: ratio(ours[path].dialP95Ms, upstream[path].dialP95Ms),
          runP50Ms: ratio(ours[path].runP50Ms, upstream[path].runP50Ms),
          runP95Ms: ratio(ours[path].runP95Ms, upstream[path].runP95Ms),
        },
      ]),
    ),
  };
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
  writeFileSync(join(ROOT, 'bench', 'results', 'paths.json'), `${JSON.stringify(report, null, 2)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
