// `npm run test:interop:tunneler`: routers with the embedded tunneler, configured by `ziti create config router edge`
// (issue 30 items 1 and 8), against our controller. A `mode: host` router hosts a `host.v1` service served by a plain
// TCP echo server; `ziti demo zcat` dials it through the network; a `mode: proxy` router intercepts it on a local port
// and proxied connections are echoed; the host router killed and restarted replaces its stale terminator. Figures
// (time from `ziti router run` to the first terminator and to the first proxied byte) go to
// test/interop/results/tunneler.json. Skips without the `ziti` binary. ZITI_INTEROP_CONTROLLER=upstream runs the same
// against an upstream v1.1.8 controller.
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../../bench/server-process.js';
import {
  create,
  enrolledIdentity,
  findZiti,
  grant,
  openPolicies,
  readLog,
  startController,
  tempDir,
  terminators,
  until,
  zcat,
  type NetworkController,
  type Program,
} from './network.js';
import { tunnelRouter, untilConnected } from './tunnel-router.js';

const RESULTS = join(dirname(fileURLToPath(import.meta.url)), 'results');
const binary = findZiti();

/** One connection to the proxy's port: writes `line`, resolves with what comes back once as long, or rejects. */
function proxyDial(port: number, line: string, timeoutMs = 5000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    let received = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no echo within ${timeoutMs} ms (got ${JSON.stringify(received)})`));
    }, timeoutMs);
    socket.on('connect', () => socket.write(line));
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString();
      if (received.length >= line.length) {
        clearTimeout(timer);
        socket.end();
        resolve(received);
      }
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      if (received.length < line.length) reject(new Error(`closed after ${JSON.stringify(received)}`));
    });
  });
}

describe(
  'tunneler-enabled v1.1.8 routers configured by `ziti create config router edge`',
  { skip: binary === undefined ? 'no ziti v1.1.8 binary (set ZITI_UPSTREAM_BIN)' : false },
  () => {
    const ziti = binary!;
    let work: string;
    let controller: NetworkController;
    let ctrlEndpoint: string;
    let echoServer: Server;
    let echoPort: number;
    let proxyPort: number;
    let serviceId: string;
    let client: { id: string; file: string };
    let host: Awaited<ReturnType<typeof tunnelRouter>>;
    let proxy: Awaited<ReturnType<typeof tunnelRouter>>;
    let hostRun: Program | undefined;
    let bindPolicyId: string;
    let proxyRun: Program | undefined;
    const figures: Record<string, unknown> = {};
    const diagnostics = () =>
      `\n--- controller ---\n${readLog(controller.logFile).slice(-3000)}\n--- host router ---\n${hostRun?.log.slice(-3000)}\n--- proxy router ---\n${proxyRun?.log.slice(-3000)}`;
    const tunnelTerminators = async () =>
      (await terminators(controller, serviceId)).filter((entry) => entry.binding === 'tunnel');

    before(async () => {
      work = tempDir('ziti-tunneler-interop-');
      ({ controller, ctrlEndpoint } = await startController(
        process.env.ZITI_INTEROP_CONTROLLER === 'upstream' ? 'upstream' : 'ours',
        work,
      ));
      echoServer = createServer((socket) => socket.pipe(socket));
      echoPort = await freePort();
      await new Promise<void>((resolve) => echoServer.listen(echoPort, '127.0.0.1', resolve));
      proxyPort = await freePort();
      await openPolicies(controller);
      const hostConfig = await create(controller, '/configs', {
        name: 'echo-host',
        configTypeId: 'NH5p4FpGR',
        data: { protocol: 'tcp', address: '127.0.0.1', port: echoPort },
      });
      serviceId = await create(controller, '/services', {
        name: 'echo',
        encryptionRequired: true,
        configs: [hostConfig],
      });
      client = await enrolledIdentity(ziti, controller, 'echo-client', work);
      host = await tunnelRouter(ziti, controller, ctrlEndpoint, work, { name: 'tunnel-host', mode: 'host' });
      proxy = await tunnelRouter(ziti, controller, ctrlEndpoint, work, {
        name: 'tunnel-proxy',
        mode: 'proxy',
        proxyServices: [`echo:${proxyPort}`],
      });
      bindPolicyId = await grant(controller, 'Bind', serviceId, [host.routerId], 'echo-bind');
      await grant(controller, 'Dial', serviceId, [proxy.routerId, client.id], 'echo-dial');
    });

    after(async () => {
      await proxyRun?.stop();
      await hostRun?.stop();
      await controller?.stop();
      await new Promise((resolve) => echoServer?.close(resolve));
      mkdirSync(RESULTS, { recursive: true });
      writeFileSync(
        join(RESULTS, `tunneler${controller?.kind === 'upstream' ? '-upstream' : ''}.json`),
        `${JSON.stringify(figures, null, 2)}\n`,
      );
      process.stdout.write(`tunneler interop figures: ${JSON.stringify(figures)}\n`);
      if (process.env.ZITI_INTEROP_KEEP) process.stdout.write(`kept: ${work}\n`);
      else rmSync(work, { recursive: true, force: true });
    });

    it('the generated config has a tunnel listener in host mode', () => {
      assert.match(host.config(), /- binding: tunnel\n\s+options:\n\s+mode: host/);
    });

    it('host mode: the router authenticates as its identity and hosts the service with a tunnel terminator', async () => {
      const started = performance.now();
      hostRun = host.run();
      await untilConnected(host, hostRun, 'the host router');
      const [terminator] = await until(
        () => `a tunnel terminator${diagnostics()}`,
        async () => {
          const list = await tunnelTerminators();
          return list.length > 0 ? list : undefined;
        },
        60_000,
      );
      figures.runToFirstTerminatorMs = Math.round(performance.now() - started);
      assert.equal((terminator!.router as { id: string }).id, host.routerId);
      assert.doesNotMatch(hostRun.log, /unable to authenticate/);
    });

    it('an SDK dial (zcat) through the network reaches the echo server behind the host router', async () => {
      const reply = await zcat(ziti, client.file, 'echo', Buffer.from('hello tunnel\n'), work);
      assert.equal(reply.code, 0, `zcat exited ${reply.code}: ${reply.log.slice(-1500)}${diagnostics()}`);
      assert.equal(reply.output.toString(), 'hello tunnel\n');
      figures.sdkDialMs = Math.round(reply.ms);
    });

    it('proxy mode: connections to the local port are carried to the host and echoed', async () => {
      const started = performance.now();
      proxyRun = proxy.run();
      await until(
        () => `a proxied echo${diagnostics()}`,
        async () => {
          try {
            return (await proxyDial(proxyPort, 'first byte\n', 3000)) === 'first byte\n';
          } catch {
            return false;
          }
        },
        60_000,
        250,
      );
      figures.runToFirstProxiedByteMs = Math.round(performance.now() - started);
      const lines = Array.from({ length: 20 }, (_, index) => `proxied ${index}\n`);
      assert.deepEqual(await Promise.all(lines.map((line) => proxyDial(proxyPort, line))), lines);
    });

    it('the host router killed and run again: its stale terminator is replaced and dials echo again', async () => {
      const old = (await tunnelTerminators()).map((entry) => String(entry.id));
      // A reconnecting router is asked about its terminators older than 5 s (upstream's window; younger ones were made
      // on the new connection): the one made above must be past it for the restart to find it stale.
      await sleep(6000);
      await hostRun!.kill();
      const restarted = performance.now();
      hostRun = host.run();
      await until(
        () => `a new tunnel terminator and the stale one gone (was ${old.join(',')})${diagnostics()}`,
        async () => {
          const now = (await tunnelTerminators()).map((entry) => String(entry.id));
          return now.length > 0 && now.every((id) => !old.includes(id));
        },
        90_000,
        250,
      );
      figures.hostRestartToNewTerminatorMs = Math.round(performance.now() - restarted);
      assert.equal(await proxyDial(proxyPort, 'after restart\n', 10_000), 'after restart\n');
      const reply = await zcat(ziti, client.file, 'echo', Buffer.from('sdk after restart\n'), work);
      assert.equal(reply.output.toString(), 'sdk after restart\n', reply.log.slice(-1500));
    });

    it('the host router’s identity loses Bind: its terminator goes', async () => {
      const removed = await controller.api('DELETE', `/service-policies/${bindPolicyId}`);
      assert.equal(removed.status, 200);
      const started = performance.now();
      await until(
        () => `the tunnel terminators gone${diagnostics()}`,
        async () => (await tunnelTerminators()).length === 0,
        60_000,
        250,
      );
      figures.bindLostToTerminatorGoneMs = Math.round(performance.now() - started);
    });
  },
);
