// `npm run bench:routers`: BENCH_ROUTERS (default 500) enrolled edge routers connect to the control port at once,
// each over its own TLS connection with the hello a v1.1.8 router sends (test/support/test-router.ts). Reports the
// time until REST shows every one online, the controller's memory per connected router, and the CPU the idle
// channels' heartbeats cost it (upstream's 10 s interval both ways) over BENCH_IDLE_SECONDS (default 30), against the
// same window before the routers came. Writes bench/results/routers-*.json.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { installSignalCleanup, onCleanup, runCleanup } from './cleanup.js';
import { ADMIN_PASSWORD, ADMIN_USERNAME, startController } from './controller-process.js';
import { httpsRequest, loginAdmin, totalCount } from './https-client.js';
import { ROOT } from './scenario-run.js';
import { freePort, type ServerProcess } from './server-process.js';
import { say } from './settings.js';
import { TestRouter, type EnrolledRouter } from '../test/support/test-router.js';
import { newCsr, newKeyPair } from '../test/support/test-keys.js';

const count = Number(process.env.BENCH_ROUTERS ?? 500);
const idleSeconds = Number(process.env.BENCH_IDLE_SECONDS ?? 30);
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

/** Controller CPU (ms per second of wall time) over `seconds`. */
async function cpuOver(controller: ServerProcess, seconds: number): Promise<number> {
  const [cpu, wall] = [controller.cpuSeconds(), performance.now()];
  await sleep(seconds * 1000);
  return ((controller.cpuSeconds() - cpu) * 1000) / ((performance.now() - wall) / 1000);
}

async function main(): Promise<void> {
  installSignalCleanup();
  const home = mkdtempSync(join(tmpdir(), 'ziti-bench-routers-'));
  onCleanup(() => Promise.resolve(rmSync(home, { recursive: true, force: true })));
  const [apiPort, ctrlPort] = [await freePort(), await freePort()];
  const ctrlArgs = ['--ctrl-port', String(ctrlPort), '--ctrl-bind', '127.0.0.1'];
  let controller = await startController(home, apiPort, { args: ctrlArgs });
  const connected: TestRouter[] = [];
  try {
    let token = await loginAdmin(controller.baseUrl, ADMIN_USERNAME, ADMIN_PASSWORD);
    say(`enrolling ${count} edge routers`);
    const routers = await enrollRouters(controller.baseUrl, token);
    const ca = readFileSync(join(home, 'pki', 'root-ca.cert.pem'), 'utf8');
    // A fresh process for the measured part: the enrollments' garbage would blur its memory figures.
    await controller.stop();
    controller = await startController(home, apiPort, { args: ctrlArgs, stdoutFile: join(home, 'controller.log') });
    token = await loginAdmin(controller.baseUrl, ADMIN_USERNAME, ADMIN_PASSWORD);
    say(`baseline: controller CPU over ${idleSeconds} s without routers`);
    await sleep(2000);
    const rssBeforeMb = controller.rssMb();
    const baselineCpu = await cpuOver(controller, idleSeconds);

    say(`${count} routers connecting at once`);
    const started = performance.now();
    const cpuBefore = controller.cpuSeconds();
    // As real routers do, one that fails tries again (after 1 s here; a v1.1.8 router backs off from 1 s too).
    const reasons: string[] = [];
    const attempt = async (router: EnrolledRouter, tries = 1): Promise<TestRouter> => {
      try {
        return await TestRouter.connect({ port: ctrlPort, router, ca });
      } catch (error) {
        reasons.push((error as Error).message);
        if (tries >= 5) throw error;
        await sleep(1000);
        return attempt(router, tries + 1);
      }
    };
    const results = await Promise.allSettled(routers.map((router) => attempt(router)));
    const helloMs = performance.now() - started;
    for (const result of results) if (result.status === 'fulfilled') connected.push(result.value);
    const refused = results.filter((result) => result.status === 'rejected').length;
    const controllerRefusals = readFileSync(join(home, 'controller.log'), 'utf8')
      .split('\n')
      .flatMap((line) =>
        line.includes('router connection refused') ? [String((JSON.parse(line) as { reason: string }).reason)] : [],
      );
    while ((await onlineCount(controller.baseUrl, token)) < connected.length) await sleep(50);
    const allOnlineMs = performance.now() - started;
    // The controller's own CPU for the whole storm: what the machine's other load does not move.
    const stormCpuMs = (controller.cpuSeconds() - cpuBefore) * 1000;

    say(`idle: controller CPU over ${idleSeconds} s with ${connected.length} routers heartbeating`);
    await sleep(2000);
    const rssAfterMb = controller.rssMb();
    const idleCpu = await cpuOver(controller, idleSeconds);
    const result = {
      startedAt: new Date().toISOString(),
      routers: count,
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
    await controller.stop();
    await runCleanup();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exitCode = 1;
});
