// `npm run bench:routers`: BENCH_ROUTERS (default 500) enrolled edge routers connect to the control port at once,
// each over its own TLS connection with the hello a v1.1.8 router sends (test/support/test-router.ts). Reports the
// time until REST shows every one online, the controller's memory per connected router, and the CPU the idle
// channels' heartbeats cost it (upstream's 10 s interval both ways) over BENCH_IDLE_SECONDS (default 30), against the
// same window before the routers came. BENCH_INSTANCES=2 (with BENCH_STORE=postgres) starts a second instance on the
// same database and sends every other router to it; CPU and memory are then both instances' together. Writes
// bench/results/routers-*.json.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { installSignalCleanup, onCleanup, runCleanup } from './cleanup.js';
import { shareStore } from './bench-store.js';
import { ADMIN_PASSWORD, ADMIN_USERNAME, startController } from './controller-process.js';
import { httpsRequest, loginAdmin, totalCount } from './https-client.js';
import { ROOT } from './scenario-run.js';
import { freePort, type ServerProcess } from './server-process.js';
import { say, settings } from './settings.js';
import { TestRouter, type EnrolledRouter } from '../test/support/test-router.js';
import { newCsr, newKeyPair } from '../test/support/test-keys.js';

const count = Number(process.env.BENCH_ROUTERS ?? 500);
const idleSeconds = Number(process.env.BENCH_IDLE_SECONDS ?? 30);
const instanceCount = Number(process.env.BENCH_INSTANCES ?? 1);
/** The set-up's requests (not measured) may wait long on a machine others load. */
const SETUP_TIMEOUT_MS = 60_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Creates and enrolls the routers (one key pair for all: enrollment signs whatever key a CSR carries). */
async function enrollRouters(baseUrl: string, token: string): Promise<EnrolledRouter[]> {
  const management = `${baseUrl}/edge/management/v1`;
  const key = await newKeyPair('ec');
  const routers: EnrolledRouter[] = [];
  for (let start = 0; start < count; start += 25) {
    const batch = Array.from({ length: Math.min(25, count - start) }, (_, i) => start + i);
    routers.push(
      ...(await Promise.all(
        batch.map(async (index) => {
          const name = `bench-router-${index}`;
          const created = await httpsRequest(`${management}/edge-routers`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'zt-session': token },
            body: JSON.stringify({ name }),
            timeoutMs: SETUP_TIMEOUT_MS,
          });
          if (created.status !== 201) throw new Error(`create router: ${created.status}`);
          const id = (created.body as { data: { id: string } }).data.id;
          const detail = await httpsRequest(`${management}/edge-routers/${id}`, {
            headers: { 'zt-session': token },
            timeoutMs: SETUP_TIMEOUT_MS,
          });
          const enrollmentToken = (detail.body as { data: { enrollmentToken: string } }).data.enrollmentToken;
          const csr = await newCsr(key, `C=US, O=OpenZiti, CN=${id}`);
          const enrolled = await httpsRequest(
            `${baseUrl}/edge/client/v1/enroll?method=erott&token=${enrollmentToken}`,
            {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ certCsr: csr, serverCertCsr: csr }),
              timeoutMs: SETUP_TIMEOUT_MS,
            },
          );
          if (enrolled.status !== 200) throw new Error(`enroll router: ${enrolled.status}`);
          return { id, name, certPem: (enrolled.body as { data: { cert: string } }).data.cert, keyPem: key.keyPem };
        }),
      )),
    );
  }
  return routers;
}

async function onlineCount(baseUrl: string, token: string): Promise<number> {
  const reply = await httpsRequest(
    `${baseUrl}/edge/management/v1/edge-routers?limit=1&filter=${encodeURIComponent('online = true')}`,
    { headers: { 'zt-session': token } },
  );
  return totalCount(reply.body) ?? -1;
}

/** The instances' CPU seconds and RSS together. */
const cpuSecondsOf = (instances: ServerProcess[]) => instances.reduce((sum, one) => sum + one.cpuSeconds(), 0);
const rssMbOf = (instances: ServerProcess[]) => instances.reduce((sum, one) => sum + one.rssMb(), 0);

/** Controller CPU (ms per second of wall time) over `seconds`. */
async function cpuOver(instances: ServerProcess[], seconds: number): Promise<number> {
  const [cpu, wall] = [cpuSecondsOf(instances), performance.now()];
  await sleep(seconds * 1000);
  return ((cpuSecondsOf(instances) - cpu) * 1000) / ((performance.now() - wall) / 1000);
}

async function main(): Promise<void> {
  installSignalCleanup();
  const home = mkdtempSync(join(tmpdir(), 'ziti-bench-routers-'));
  onCleanup(() => Promise.resolve(rmSync(home, { recursive: true, force: true })));
  const [apiPort, ctrlPort] = [await freePort(), await freePort()];
  const ctrlArgs = ['--ctrl-port', String(ctrlPort), '--ctrl-bind', '127.0.0.1'];
  let controller = await startController(home, apiPort, { args: ctrlArgs });
  let instances = [controller];
  const connected: TestRouter[] = [];
  try {
    let token = await loginAdmin(controller.baseUrl, ADMIN_USERNAME, ADMIN_PASSWORD);
    say(`enrolling ${count} edge routers`);
    const routers = await enrollRouters(controller.baseUrl, token);
    const ca = readFileSync(join(home, 'pki', 'root-ca.cert.pem'), 'utf8');
    // A fresh process for the measured part: the enrollments' garbage would blur its memory figures.
    await controller.stop();
    controller = await startController(home, apiPort, { args: ctrlArgs, stdoutFile: join(home, 'controller.log') });
    instances = [controller];
    const ctrlPorts = [ctrlPort];
    const logs = [join(home, 'controller.log')];
    if (instanceCount > 1 && settings.store !== 'postgres')
      throw new Error('BENCH_INSTANCES > 1 needs BENCH_STORE=postgres');
    for (let index = 1; index < instanceCount; index += 1) {
      // Another instance on the same database: its own home, API and control ports.
      const other = mkdtempSync(join(tmpdir(), 'ziti-bench-routers-'));
      onCleanup(() => Promise.resolve(rmSync(other, { recursive: true, force: true })));
      shareStore(other, home);
      const [otherApi, otherCtrl] = [await freePort(), await freePort()];
      const args = ['--ctrl-port', String(otherCtrl), '--ctrl-bind', '127.0.0.1'];
      instances.push(await startController(other, otherApi, { args, stdoutFile: join(other, 'controller.log') }));
      ctrlPorts.push(otherCtrl);
      logs.push(join(other, 'controller.log'));
    }
    token = await loginAdmin(controller.baseUrl, ADMIN_USERNAME, ADMIN_PASSWORD);
    say(`baseline: controller CPU over ${idleSeconds} s without routers`);
    await sleep(2000);
    const rssBeforeMb = rssMbOf(instances);
    const baselineCpu = await cpuOver(instances, idleSeconds);

    say(`${count} routers connecting at once`);
    const started = performance.now();
    const cpuBefore = cpuSecondsOf(instances);
    // As real routers do, one that fails tries again (after 1 s here; a v1.1.8 router backs off from 1 s too).
    const reasons: string[] = [];
    const attempt = async (router: EnrolledRouter, port: number, tries = 1): Promise<TestRouter> => {
      try {
        return await TestRouter.connect({ port, router, ca });
      } catch (error) {
        reasons.push((error as Error).message);
        if (tries >= 5) throw error;
        await sleep(1000);
        return attempt(router, port, tries + 1);
      }
    };
    const results = await Promise.allSettled(
      routers.map((router, index) => attempt(router, ctrlPorts[index % ctrlPorts.length] ?? ctrlPort)),
    );
    const helloMs = performance.now() - started;
    for (const result of results) if (result.status === 'fulfilled') connected.push(result.value);
    const refused = results.filter((result) => result.status === 'rejected').length;
    const controllerRefusals = logs
      .flatMap((log) => readFileSync(log, 'utf8').split('\n'))
      .flatMap((line) =>
        line.includes('router connection refused') ? [String((JSON.parse(line) as { reason: string }).reason)] : [],
      );
    while ((await onlineCount(controller.baseUrl, token)) < connected.length) await sleep(50);
    const allOnlineMs = performance.now() - started;
    // The controller's own CPU for the whole storm: what the machine's other load does not move.
    const stormCpuMs = (cpuSecondsOf(instances) - cpuBefore) * 1000;

    say(`idle: controller CPU over ${idleSeconds} s with ${connected.length} routers heartbeating`);
    await sleep(2000);
    const rssAfterMb = rssMbOf(instances);
    const idleCpu = await cpuOver(instances, idleSeconds);
    const result = {
      startedAt: new Date().toISOString(),
      routers: count,
      store: settings.store,
      instances: instances.length,
      connected: connected.length,
      refused,
      retriedAfter: Object.fromEntries(
        [...new Set(reasons)].map((reason) => [reason, reasons.filter((r) => r === reason).length]),
      ),
      controllerRefusals: Object.fromEntries(
        [...new Set(controllerRefusals)].map((reason) => [
          reason,
          controllerRefusals.filter((r) => r === reason).length,
        ]),
      ),
      helloExchangesDoneMs: Math.round(helloMs),
      allOnlineInRestMs: Math.round(allOnlineMs),
      controllerCpuMsPerRouterConnect: Number((stormCpuMs / Math.max(1, connected.length)).toFixed(2)),
      loadAverage: loadavg()[0],
      controllerRssMb: { before: rssBeforeMb, after: rssAfterMb },
      memoryPerRouterKb: Math.round(((rssAfterMb - rssBeforeMb) * 1024) / Math.max(1, connected.length)),
      controllerCpuMsPerSecond: {
        withoutRouters: Number(baselineCpu.toFixed(2)),
        withRouters: Number(idleCpu.toFixed(2)),
      },
      heartbeatCpuMicrosecondsPerRouterPerSecond: Number(
        (((idleCpu - baselineCpu) * 1000) / Math.max(1, connected.length)).toFixed(2),
      ),
    };
    const folder = join(ROOT, 'bench/results');
    mkdirSync(folder, { recursive: true });
    writeFileSync(
      join(folder, `routers-${result.startedAt.replaceAll(':', '-')}.json`),
      `${JSON.stringify(result, null, 2)}\n`,
    );
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    if (refused > 0) throw new Error(`${refused} routers were refused`);
  } finally {
    await Promise.all(connected.map((router) => router.close()));
    await Promise.all(instances.map((one) => one.stop()));
    await runCleanup();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exitCode = 1;
});
