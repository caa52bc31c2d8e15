// `npm run bench:circuit-memory` (issue 33 item 3, memory per circuit): how much controller memory a live circuit
// holds, on ours (BENCH_STORE) and upstream v1.1.8 alike (BENCH_CIRCUIT_TARGETS, default `ours,upstream`). One
// enrolled test router (test/support/test-router.ts, speaking as a v1.1.8 router) hosts a transport terminator and
// asks for BENCH_CIRCUITS_HELD circuits (default 10,000; 16 at a time) as a `binding: proxy` listener does
// (CircuitRequest 1000), answering every Route as its dialer would; none is ever torn down, so every one is held by
// the controller. Memory per circuit is the RSS growth from before the first to after the last (2 s later, each
// process's collector left to run) divided by the circuits; CPU per circuit and the circuits REST lists are stated
// beside it. `npm run bench:circuits` times real dials (Go SDK through a real router); it keeps no circuit open, so
// it states no memory. Writes bench/results/circuit-memory-*.json.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fromBinary } from '@bufbuild/protobuf';
import { installSignalCleanup, onCleanup } from './cleanup.js';
import { runBench, writeResult } from './results-file.js';
import { ADMIN_PASSWORD, ADMIN_USERNAME, startController } from './controller-process.js';
import { httpsRequest, loginAdmin, totalCount } from './https-client.js';
import { load1, pool, sleep } from './network-steps.js';
import { enrollRouters } from './router-setup.js';
import { freePort, type ServerProcess } from './server-process.js';
import { say, settings } from './settings.js';
import { asServer } from './upstream-phase.js';
import { ContentType as CtrlType, RouteSchema } from '../src/fabric/messages/gen/ctrl_pb.js';
import { ControlContentType, RouteResultHeader } from '../src/fabric/messages/headers.js';
import { encodeBool, encodeString, encodeU32 } from '../src/fabric/channel/header-codecs.js';
import { TestRouter } from '../test/support/test-router.js';
import { startUpstream, UpstreamUnavailable } from '../scripts/upstream.js';

const held = Number(process.env.BENCH_CIRCUITS_HELD ?? 10_000);
const targets = (process.env.BENCH_CIRCUIT_TARGETS ?? 'ours,upstream').split(',').filter(Boolean);
const CONCURRENCY = 16;

async function create(baseUrl: string, token: string, collection: string, body: unknown): Promise<string> {
  const reply = await httpsRequest(`${baseUrl}/edge/management/v1/${collection}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'zt-session': token },
    body: JSON.stringify(body),
  });
  if (reply.status !== 201) throw new Error(`POST ${collection}: ${reply.status} ${JSON.stringify(reply.body)}`);
  return (reply.body as { data: { id: string } }).data.id;
}

async function measure(target: string, server: ServerProcess, ctrlPort: number, ca: string) {
  const token = await loginAdmin(server.baseUrl, ADMIN_USERNAME, ADMIN_PASSWORD);
  const [enrolled] = await enrollRouters(server.baseUrl, token, 1);
  const serviceId = await create(server.baseUrl, token, 'services', { name: 'held', encryptionRequired: false });
  await create(server.baseUrl, token, 'terminators', {
    service: serviceId,
    router: enrolled!.id,
    binding: 'transport',
    address: 'tcp:127.0.0.1:7',
  });
  const router = await TestRouter.connect({ port: ctrlPort, router: enrolled!, ca, lean: true });
  // The router hosts the terminator too: every Route is answered as its transport dialer would, with success.
  router.channel.handle(CtrlType.RouteType, (message) => {
    const route = fromBinary(RouteSchema, message.body);
    router.channel.reply(message, {
      contentType: ControlContentType.routeResult,
      headers: new Map([
        [RouteResultHeader.attempt, encodeU32(route.attempt)],
        [RouteResultHeader.success, encodeBool(true)],
      ]),
      body: encodeString(route.circuitId),
    });
  });
  try {
    // A first circuit outside the measure: what any first circuit loads (code, caches) is not a circuit's cost.
    const first = await router.requestCircuit(serviceId, { timeoutMs: 60_000 });
    if (!first.success) throw new Error(`${target}: circuit refused: ${first.reason}`);
    await sleep(2000);
    const [rssBefore, cpuBefore] = [server.rssMb(), server.cpuSeconds()];
    let failed = 0;
    const { done, seconds } = await pool(held, CONCURRENCY, async () => {
      const answer = await router.requestCircuit(serviceId, { timeoutMs: 60_000 });
      if (!answer.success) failed += 1;
    });
    const cpuMs = (server.cpuSeconds() - cpuBefore) * 1000;
    await sleep(2000);
    const rssAfter = server.rssMb();
    const listed = await httpsRequest(`${server.baseUrl}/fabric/v1/circuits?limit=1`, {
      headers: { 'zt-session': token },
    });
    const result = {
      target,
      store: target === 'ours' ? settings.store : 'bolt',
      circuits: done - failed,
      failed,
      listedInRest: totalCount(listed.body) ?? listed.status,
      circuitsPerSecond: Math.round(done / seconds),
      controllerCpuMsPerCircuit: Number((cpuMs / Math.max(1, done)).toFixed(2)),
      rssMb: { before: rssBefore, after: rssAfter },
      memoryPerCircuitBytes: Math.round(((rssAfter - rssBefore) * 1024 * 1024) / Math.max(1, done - failed)),
      load: load1(),
    };
    say(JSON.stringify(result));
    return result;
  } finally {
    await router.close();
  }
}

async function main(): Promise<void> {
  installSignalCleanup();
  const startedAt = new Date().toISOString();
  const runs = [];
  for (const target of targets) {
    if (target === 'ours') {
      const home = mkdtempSync(join(tmpdir(), 'ziti-bench-circuit-memory-'));
      onCleanup(() => Promise.resolve(rmSync(home, { recursive: true, force: true })));
      const [apiPort, ctrlPort] = [await freePort(), await freePort()];
      const args = ['--ctrl-port', String(ctrlPort), '--ctrl-bind', '127.0.0.1'];
      const controller = await startController(home, apiPort, { args });
      try {
        const ca = readFileSync(join(home, 'pki', 'root-ca.cert.pem'), 'utf8');
        runs.push(await measure('ours', controller, ctrlPort, ca));
      } finally {
        await controller.stop();
      }
    } else if (target === 'upstream') {
      try {
        const upstream = await startUpstream({ username: ADMIN_USERNAME, password: ADMIN_PASSWORD });
        try {
          runs.push(
            await measure('upstream', asServer(upstream), upstream.port, readFileSync(upstream.caFile, 'utf8')),
          );
        } finally {
          await upstream.stop();
        }
      } catch (error) {
        if (!(error instanceof UpstreamUnavailable)) throw error;
        say(`upstream not run: ${error.message}`);
      }
    } else throw new Error(`BENCH_CIRCUIT_TARGETS: unknown target ${target}`);
  }
  const result = { startedAt, held, concurrency: CONCURRENCY, runs };
  writeResult('circuit-memory', startedAt, result);
}

runBench(main);
