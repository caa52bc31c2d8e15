// `npm run bench:network` (issue 33, item 3): a network of realistic size, grown through the management API on ours
// (BENCH_STORE as the general bench: SQLite, or PostgreSQL) and on upstream v1.1.8 in the same run, timing at each
// size what upstream's users report slowing: identity set-up as zrok does it (zrok#550), terminator creation and churn
// (ziti#3318), a typical identity's service list, its session creates and a policy change. Sizes: BENCH_NETWORK_SIZES identities
// (default 1000,10000), BENCH_NETWORK_SERVICES (10,000), BENCH_NETWORK_TERMINATORS (50,000, created at the first
// size in ten steps); BENCH_NETWORK_TARGETS (ours,upstream); a step still running after BENCH_NETWORK_STEP_SECONDS
// (300) stops there and reports how far it got. BENCH_NETWORK_SEED=store seeds ours' identities through the store
// (bench/network-seed.ts). The router connect storm and full sync are `npm run bench:routers`.
import https from 'node:https';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installSignalCleanup, onCleanup } from './cleanup.js';
import { runBench, writeResult } from './results-file.js';
import { ADMIN_PASSWORD, ADMIN_USERNAME, startController } from './controller-process.js';
import { loginAdmin, loginWithPassword } from './https-client.js';
import * as step from './network-steps.js';
import { freePort, type ServerProcess } from './server-process.js';
import { say, settings } from './settings.js';
import { asServer } from './upstream-phase.js';
import { seedMode, seedThroughStore } from './network-seed.js';
import { startUpstream, UpstreamUnavailable } from '../scripts/upstream.js';

const list = (name: string, fallback: string) => (process.env[name] ?? fallback).split(',').filter(Boolean);
const sizes = list('BENCH_NETWORK_SIZES', '1000,10000').map(Number);
const serviceCount = Number(process.env.BENCH_NETWORK_SERVICES ?? 10_000);
const terminatorCount = Number(process.env.BENCH_NETWORK_TERMINATORS ?? 50_000);
const targets = list('BENCH_NETWORK_TARGETS', 'ours,upstream');
const stepSeconds = Number(process.env.BENCH_NETWORK_STEP_SECONDS ?? 300);
const CONCURRENCY = settings.upstreamSeedConcurrency;

interface Growth {
  what: string;
  /** Through the management API, or (ours with BENCH_NETWORK_SEED=store) inserted through the store. */
  how: 'api' | 'store';
  target: number;
  reached: number;
  perSecond: number;
  /** The server process's CPU per operation (on PostgreSQL its database backends' is not counted). */
  serverCpuMsEach: number;
  load: number;
}

interface SizeStep {
  identities: number;
  load: number;
  identitySetUp: step.Timing;
  serviceList: step.Timing;
  /** The typical identity's session create for a Dial-able service, on its API session (as an SDK dials). */
  sessionCreate: step.Timing;
  policyChange: step.Timing;
  /** Creates and deletes (a pair each) per second, and the server's CPU per pair. */
  terminatorChurnPerSecond: number;
  terminatorChurnCpuMsEach: number;
  rssMb: number;
}

interface TargetRun {
  target: string;
  store: string;
  growth: Growth[];
  /** Terminator creation per tenth of the terminators, created one tenth at a time. */
  terminatorSteps: Growth[];
  /** The server's RSS before and after the terminators were created (ours keeps them in its store, not in memory). */
  terminatorRssMb?: { before: number; after: number; perTerminatorBytes: number };
  steps: SizeStep[];
  stoppedAt?: string;
}

async function grow(
  server: ServerProcess,
  what: string,
  from: number,
  to: number,
  make: (index: number) => Promise<unknown>,
): Promise<Growth> {
  const deadline = performance.now() + stepSeconds * 1000;
  const cpu = server.cpuSeconds();
  const { done, seconds } = await step.pool(to - from, CONCURRENCY, (i) => make(from + i), deadline);
  const growth: Growth = {
    what,
    how: 'api',
    target: to,
    reached: from + done,
    perSecond: Math.round(done / seconds),
    serverCpuMsEach: Number((((server.cpuSeconds() - cpu) * 1000) / Math.max(1, done)).toFixed(2)),
    load: step.load1(),
  };
  say(
    `  ${what} ${from}..${growth.reached} of ${to}: ${growth.perSecond}/s, ${growth.serverCpuMsEach} ms CPU each (load ${growth.load})`,
  );
  return growth;
}

/** Where ours runs, so that it can be stopped to seed its store and started again on the same port. */
interface OursHome {
  home: string;
  port: number;
}

async function runTarget(
  target: string,
  started: ServerProcess,
  store: string,
  ours?: OursHome,
): Promise<{ run: TargetRun; server: ServerProcess }> {
  let server = started;
  const token = await loginAdmin(server.baseUrl, ADMIN_USERNAME, ADMIN_PASSWORD);
  const api: step.Api = { baseUrl: server.baseUrl, token, agent: new https.Agent({ keepAlive: true }) };
  const run: TargetRun = { target, store, growth: [], terminatorSteps: [], steps: [] };
  try {
    const routerId = await step.create(api, 'edge-routers', { name: 'net-router', roleAttributes: ['net'] });
    const serviceIds: string[] = [];
    run.growth.push(
      await grow(server, 'services', 0, serviceCount, async (i) => {
        serviceIds[i] = await step.create(api, 'services', {
          name: step.serviceName(i),
          encryptionRequired: true,
          roleAttributes: [step.serviceAttribute(i)],
        });
      }),
    );
    const typicalId = await step.create(api, 'identities', {
      name: 'net-typical',
      type: 'User',
      isAdmin: false,
      roleAttributes: ['typical'],
    });
    await step.create(api, 'authenticators', {
      method: 'updb',
      identityId: typicalId,
      username: 'net-typical',
      password: ADMIN_PASSWORD,
    });
    const policyId = await step.create(api, 'service-policies', {
      name: 'net-typical',
      type: 'Dial',
      semantic: 'AnyOf',
      identityRoles: ['#typical'],
      serviceRoles: ['#s0'],
    });
    await step.dialPolicies(api);
    let identities = 0;
    for (const size of sizes) {
      let growth: Growth;
      if (ours && seedMode === 'store') {
        const seeded = await seedThroughStore(server, ours.home, ours.port, api, identities, size);
        server = seeded.server;
        const what = 'identities';
        growth = {
          what,
          how: 'store',
          target: size,
          reached: size,
          perSecond: seeded.perSecond,
          serverCpuMsEach: 0,
          load: step.load1(),
        };
      } else
        growth = await grow(server, 'identities', identities, size, (i) =>
          step.create(api, 'identities', {
            name: step.identityName(i),
            type: 'User',
            isAdmin: false,
            roleAttributes: [step.identityAttribute(i)],
          }),
        );
      run.growth.push(growth);
      identities = growth.reached;
      if (identities < size) {
        run.stoppedAt = `identities: ${identities} of ${size} in ${stepSeconds} s`;
        break;
      }
      if (run.terminatorSteps.length === 0 && terminatorCount > 0) {
        const before = server.rssMb();
        const tenth = Math.ceil(terminatorCount / 10);
        for (let from = 0; from < terminatorCount; from += tenth) {
          const to = Math.min(terminatorCount, from + tenth);
          const grown = await grow(server, 'terminators', from, to, (i) =>
            step.create(api, 'terminators', step.terminatorBody(serviceIds, routerId, i)),
          );
          run.terminatorSteps.push(grown);
          if (grown.reached < to) {
            run.stoppedAt = `terminators: ${grown.reached} of ${terminatorCount}`;
            break;
          }
        }
        const created = run.terminatorSteps.at(-1)?.reached ?? 0;
        const after = server.rssMb();
        const perTerminatorBytes = Math.round(((after - before) * 1024 * 1024) / Math.max(1, created));
        run.terminatorRssMb = { before: Math.round(before), after: Math.round(after), perTerminatorBytes };
      }
      say(`  at ${size} identities: set-ups, service lists, session creates, policy changes, terminator churn`);
      // A fresh login at each size: the last may be older than the session timeout after a long growth.
      const typicalToken = await loginWithPassword(`${server.baseUrl}/edge/client/v1`, 'net-typical', ADMIN_PASSWORD);
      if (typeof typicalToken !== 'string') throw new Error(`typical login: ${typicalToken.status}`);
      const load = step.load1();
      const identitySetUp = await step.timed(50, (i) => step.identitySetUp(api, String(size), i));
      const serviceList = await step.timed(100, () =>
        step.expectStatus(
          step.call(api, 'GET', '/edge/client/v1/services?limit=500', undefined, typicalToken),
          200,
          'service list',
        ),
      );
      const sessionCreate = await step.timed(100, () => step.sessionCreate(api, serviceIds[0]!, typicalToken));
      const policyChange = await step.timed(20, (i) =>
        step.expectStatus(
          step.call(api, 'PATCH', `/edge/management/v1/service-policies/${policyId}`, {
            serviceRoles: i % 2 === 0 ? ['#s0', '#s1'] : ['#s0'],
          }),
          200,
          'policy change',
        ),
      );
      const churnCpu = server.cpuSeconds();
      const churn = await step.pool(500, CONCURRENCY, async (i) => {
        const id = await step.create(api, 'terminators', step.terminatorBody(serviceIds, routerId, 1_000_000 + i));
        await step.expectStatus(step.call(api, 'DELETE', `/edge/management/v1/terminators/${id}`), 200, 'delete');
      });
      const sizeStep = {
        identities: size,
        load,
        identitySetUp,
        serviceList,
        sessionCreate,
        policyChange,
        terminatorChurnPerSecond: Math.round(churn.done / churn.seconds),
        terminatorChurnCpuMsEach: Number(
          (((server.cpuSeconds() - churnCpu) * 1000) / Math.max(1, churn.done)).toFixed(2),
        ),
        rssMb: server.rssMb(),
      };
      say(`  ${JSON.stringify(sizeStep)}`);
      run.steps.push(sizeStep);
    }
  } finally {
    api.agent.destroy();
  }
  return { run, server };
}

async function main(): Promise<void> {
  installSignalCleanup();
  const runs: TargetRun[] = [];
  const startedAt = new Date().toISOString();
  for (const target of targets) {
    if (target === 'ours') {
      const home = mkdtempSync(join(tmpdir(), 'ziti-bench-network-'));
      const removeHome = () => rmSync(home, { recursive: true, force: true });
      const forget = onCleanup(() => Promise.resolve(removeHome()));
      const port = await freePort();
      let controller = await startController(home, port);
      try {
        const ran = await runTarget('ours', controller, settings.store, { home, port });
        controller = ran.server;
        runs.push(ran.run);
      } finally {
        await controller.stop();
        forget();
        removeHome();
      }
    } else if (target === 'upstream') {
      try {
        const upstream = await startUpstream({ username: ADMIN_USERNAME, password: ADMIN_PASSWORD });
        try {
          runs.push((await runTarget('upstream', asServer(upstream), 'bolt')).run);
        } finally {
          await upstream.stop();
        }
      } catch (error) {
        if (!(error instanceof UpstreamUnavailable)) throw error;
        say(`upstream not run: ${error.message}`);
      }
    } else throw new Error(`BENCH_NETWORK_TARGETS: unknown target ${target}`);
  }
  const result = {
    startedAt,
    sizes,
    seed: seedMode,
    serviceCount,
    terminatorCount,
    stepSeconds,
    concurrency: CONCURRENCY,
    runs,
  };
  writeResult('network', startedAt, result);
}

runBench(main);
