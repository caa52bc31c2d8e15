// `npm run test:interop:traffic`: Go SDK traffic through a real upstream v1.1.8 router controlled by ours (issue 23
// item 6). `ziti demo echo-server` binds an echo service (encryptionRequired), `ziti demo zcat` dials it: a line comes
// back, 1 MiB comes back intact, ZITI_INTEROP_CIRCUITS (default 100) concurrent dials all echo, the hosting SDK
// restarted replaces its terminator, the controller killed (SIGKILL) under a live circuit and started again keeps the
// circuit echoing and takes new dials within seconds, the router restarted is dialled again. The router also has
// `binding: proxy` and `proxy_udp` listeners (issue 30 item 4): a plain TCP connection (a UDP datagram) to one is joined
// by the controller's answer to the router's CircuitRequest to the echo service, and bytes come back; one for a missing
// service is closed. Figures go to
// test/interop/results/traffic.json. Skips without the `ziti` binary. ZITI_INTEROP_CONTROLLER=upstream runs the same
// against an upstream v1.1.8 controller; ZITI_INTEROP_DATABASE_URL runs ours on PostgreSQL.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../../bench/server-process.js';
import { datagramThroughProxy, throughProxy } from './proxy-client.js';
import {
  echoService,
  enrolledIdentity,
  findZiti,
  openPolicies,
  readLog,
  startController,
  startEchoServer,
  startRouter,
  tempDir,
  terminators,
  until,
  zcat,
  type NetworkController,
  Program,
} from './network.js';

const RESULTS = join(dirname(fileURLToPath(import.meta.url)), 'results');
const CIRCUITS = Number(process.env.ZITI_INTEROP_CIRCUITS ?? 100);
const binary = findZiti();

describe(
  'Go SDK traffic through a real v1.1.8 router controlled by ours',
  { skip: binary === undefined ? 'no ziti v1.1.8 binary (set ZITI_UPSTREAM_BIN)' : false },
  () => {
    const ziti = binary!;
    let work: string;
    let controller: NetworkController;
    let router: Awaited<ReturnType<typeof startRouter>>;
    let host: { id: string; file: string };
    let client: { id: string; file: string };
    let serviceId: string;
    let echo: { program: Program; terminatorId: string };
    /** The router's `binding: proxy` listeners: one for the echo service, one for a service no one created. */
    let proxyPorts: { echo: number; missing: number; udp: number };
    const figures: Record<string, unknown> = {};
    const diagnostics = () =>
      `\n--- controller ---\n${readLog(controller.logFile).slice(-3000)}\n--- router ---\n${router?.program.log.slice(-3000)}\n--- echo ---\n${echo?.program.log.slice(-1500)}`;
    const dialOnce = async (input: Buffer) => {
      const reply = await zcat(ziti, client.file, 'echo', input, work);
      assert.equal(reply.code, 0, `zcat exited ${reply.code}: ${reply.log.slice(-1500)}${diagnostics()}`);
      return reply;
    };

    /** Dials (zcat) until one echoes `text`: after a restart the first dials may fail. */
    const untilDialEchoes = (text: string, what: string, timeoutMs: number, everyMs: number) => {
      const line = Buffer.from(text);
      return until(
        () => `${what}${diagnostics()}`,
        async () => {
          const reply = await zcat(ziti, client.file, 'echo', line, work, 20_000);
          return reply.code === 0 && reply.output.equals(line);
        },
        timeoutMs,
        everyMs,
      );
    };

    before(async () => {
      work = tempDir('ziti-traffic-interop-');
      ({ controller } = await startController(
        process.env.ZITI_INTEROP_CONTROLLER === 'upstream' ? 'upstream' : 'ours',
        work,
      ).then(async (started) => {
        proxyPorts = { echo: await freePort(), missing: await freePort(), udp: await freePort() };
        router = await startRouter(ziti, started.controller, started.ctrlEndpoint, work, {
          proxies: [
            { service: 'echo', port: proxyPorts.echo },
            { service: 'no-such-service', port: proxyPorts.missing },
            { service: 'echo', port: proxyPorts.udp, protocol: 'udp' },
          ],
        });
        return started;
      }));
      await openPolicies(controller);
      host = await enrolledIdentity(ziti, controller, 'echo-host', work);
      client = await enrolledIdentity(ziti, controller, 'echo-client', work);
      serviceId = await echoService(controller, 'echo', host.id, client.id, true);
    });

    after(async () => {
      await echo?.program.stop();
      await router?.program.stop();
      await controller?.stop();
      mkdirSync(RESULTS, { recursive: true });
      writeFileSync(join(RESULTS, 'traffic.json'), `${JSON.stringify(figures, null, 2)}\n`);
      process.stdout.write(`traffic interop figures: ${JSON.stringify(figures)}\n`);
      if (process.env.ZITI_INTEROP_KEEP) process.stdout.write(`kept: ${work}\n`);
      else rmSync(work, { recursive: true, force: true });
    });

    it('the echo server binds: a terminator on the router appears', async () => {
      echo = await startEchoServer(ziti, controller, host.file, 'echo', serviceId, work);
      const [terminator] = await terminators(controller, serviceId);
      assert.equal(terminator!.binding, 'edge');
      assert.equal((terminator!.router as { id: string }).id, router.routerId);
      // upstream shows the terminator's instanceId as `identity`: empty for a bind that is not addressable.
      assert.equal(terminator!.identity, '');
      assert.equal(terminator!.routerId, router.routerId);
    });

    it('zcat dials the service (encryptionRequired): the line comes back', async () => {
      const reply = await dialOnce(Buffer.from('hello through ziti\n'));
      assert.equal(reply.output.toString(), 'hello through ziti\n');
      figures.firstDialMs = Math.round(reply.ms);
    });

    it('1 MiB comes back intact', async () => {
      const payload = randomBytes(1024 * 1024);
      const reply = await dialOnce(payload);
      assert.equal(reply.output.length, payload.length);
      assert.ok(reply.output.equals(payload), 'the echoed MiB differs');
      figures.mibRoundTripMs = Math.round(reply.ms);
    });

    it('a `binding: proxy` listener: a plain TCP connection is joined to the service and echoed', async () => {
      const line = Buffer.from('hello through the proxy listener\n');
      const first = await throughProxy(proxyPorts.echo, line);
      assert.equal(first.output.toString(), line.toString(), `proxy echo: ${JSON.stringify(first)}${diagnostics()}`);
      figures.proxyFirstByteMs = Math.round(first.firstByteMs!);
      // While a connection is open its circuit is listed, tagged as upstream's fabric request tags it: the service and
      // the host, no dialling identity.
      const held = throughProxy(proxyPorts.echo, Buffer.alloc(0), 2000);
      const circuit = await until('the proxy circuit listed', async () => {
        const list = (await controller.fabric('GET', '/circuits')).data as unknown as Record<string, unknown>[];
        return list.find((entry) => (entry.tags as Record<string, string>).clientId === undefined);
      });
      await held;
      assert.deepEqual(circuit.tags, { serviceId, hostId: host.id });
      const payload = randomBytes(1024 * 1024);
      const mib = await throughProxy(proxyPorts.echo, payload);
      assert.ok(mib.output.equals(payload), `the MiB through the proxy differs (${mib.output.length} bytes back)`);
      figures.proxyMibRoundTripMs = Math.round(mib.ms);
      const many = await Promise.all(
        Array.from({ length: 20 }, (_, index) => {
          const own = Buffer.from(`proxy ${index} ${randomBytes(8).toString('hex')}\n`);
          return throughProxy(proxyPorts.echo, own).then((reply) => reply.output.equals(own));
        }),
      );
      assert.equal(many.filter((ok) => !ok).length, 0, `concurrent proxy connections failed${diagnostics()}`);
    });

    it('a `binding: proxy_udp` listener: a datagram is carried over the circuit and echoed back', async () => {
      const datagram = Buffer.from(`datagram ${randomBytes(8).toString('hex')}`);
      const reply = await datagramThroughProxy(proxyPorts.udp, datagram);
      assert.ok(reply, `no datagram came back${diagnostics()}`);
      assert.equal(reply.output.toString(), datagram.toString());
      figures.proxyUdpRoundTripMs = Math.round(reply.ms);
    });

    it('a proxy listener for a service that does not exist: the router is refused and closes the connection', async () => {
      const reply = await throughProxy(proxyPorts.missing, Buffer.from('nobody\n'));
      assert.deepEqual([reply.closedByPeer, reply.output.length], [true, 0]);
      await until(
        () => `the router's log of the refusal${diagnostics()}`,
        () => Promise.resolve(router.program.log.includes('service with id no-such-service not found')),
        10_000,
      );
    });

    it(`${CIRCUITS} concurrent circuits each echo their own bytes`, async () => {
      const started = performance.now();
      const replies = await Promise.all(
        Array.from({ length: CIRCUITS }, async (_, index) => {
          const line = Buffer.from(`circuit ${index} ${randomBytes(8).toString('hex')}\n`);
          const reply = await zcat(ziti, client.file, 'echo', line, work, 120_000);
          return { ok: reply.code === 0 && reply.output.equals(line), reply };
        }),
      );
      const failed = replies.filter((entry) => !entry.ok);
      figures.concurrent = {
        circuits: CIRCUITS,
        failed: failed.length,
        wallMs: Math.round(performance.now() - started),
        slowestMs: Math.round(Math.max(...replies.map((entry) => entry.reply.ms))),
      };
      assert.equal(
        failed.length,
        0,
        `${failed.length} of ${CIRCUITS} failed; first: ${failed[0]?.reply.log.slice(-1500)}${diagnostics()}`,
      );
    });

    it('the hosting SDK restarted: its terminator is replaced and dials reach the new one', async () => {
      const old = echo.terminatorId;
      await echo.program.stop();
      const restarted = performance.now();
      echo = await startEchoServer(ziti, controller, host.file, 'echo', serviceId, work, [old]);
      figures.hostRestartToTerminatorMs = Math.round(performance.now() - restarted);
      await until(
        'the old terminator gone',
        async () => !(await terminators(controller, serviceId)).some((entry) => entry.id === old),
        30_000,
      );
      const reply = await dialOnce(Buffer.from('after host restart\n'));
      assert.equal(reply.output.toString(), 'after host restart\n');
    });

    it(
      'the controller killed (SIGKILL) under a live circuit and started again on its home: the circuit keeps echoing, the router is taken back at once, new dials work',
      {
        skip: process.env.ZITI_INTEROP_CONTROLLER === 'upstream' ? 'restarting upstream is not supported here' : false,
      },
      async () => {
        const live = new Program(ziti, ['demo', 'zcat', '-i', client.file, 'ziti:echo'], work);
        const echoed = (line: string) =>
          until(
            () => `${JSON.stringify(line)} echoed on the open circuit\n${live.log.slice(-1500)}${diagnostics()}`,
            () => Promise.resolve(live.log.includes(line)),
            30_000,
          );
        try {
          live.child.stdin!.write('open before the kill\n');
          await echoed('open before the kill\n');
          const killedAt = Date.now();
          await controller.killAndStart(async () => {
            live.child.stdin!.write('while the controller is down\n');
            await echoed('while the controller is down\n');
          });
          const ready = performance.now();
          // The router retries every 5 s (upstream channel/reconnecting_dialer.go): what follows depends on its phase.
          figures.killToReadyMs = Date.now() - killedAt;
          const onlineAt = await until(
            () => `the router online again${diagnostics()}`,
            async () =>
              (await controller.api('GET', `/edge-routers/${router.routerId}`)).data.isOnline === true && Date.now(),
            60_000,
          );
          figures.killedRestartToOnlineMs = Math.round(performance.now() - ready);
          await untilDialEchoes('new dial after the kill\n', "a new dial after the controller's restart", 60_000, 100);
          figures.killedRestartToNewDialMs = Math.round(performance.now() - ready);
          live.child.stdin!.write('after the restart\n');
          await echoed('after the restart\n');
          // REST showed it online only once it had connected to the new process (whose log is written a second at a
          // time), and its reconnect was never refused as held by the killed one.
          const connectedAt = await until(
            'the router connected to the restarted controller, logged',
            () => {
              const times = readLog(controller.logFile)
                .split('\n')
                .filter((entry) => entry.includes('"msg":"router connected"'))
                .map((entry) => Number(/"time":(\d+)/.exec(entry)?.[1]))
                .filter((time) => time > killedAt);
              return Promise.resolve(times.length > 0 && Math.min(...times));
            },
            15_000,
            200,
          );
          assert.ok(connectedAt <= onlineAt, `online in REST at ${onlineAt}, connected at ${connectedAt}`);
          assert.doesNotMatch(readLog(controller.logFile), /router already connected/);
        } finally {
          live.child.stdin!.end();
          await live.stop();
        }
      },
    );

    it('the router restarted: the host binds again and clients dial through it', async () => {
      await router.restart();
      const restarted = performance.now();
      await until(
        'the router online again',
        async () => (await controller.api('GET', `/edge-routers/${router.routerId}`)).data.isOnline === true,
      );
      figures.routerRestartToOnlineMs = Math.round(performance.now() - restarted);
      // The SDKs reconnect to the router on their own; the first dials may fail until the host has re-bound.
      await untilDialEchoes('after router restart\n', 'a dial after the router restart', 90_000, 500);
      figures.routerRestartToDialMs = Math.round(performance.now() - restarted);
    });
  },
);
