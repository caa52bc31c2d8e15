// `npm run test:interop:tunneler`, tproxy mode (issue 30 items 1 and 8): a v1.1.8 router configured by `ziti create
// config router edge --tunnelerMode tproxy` runs in a network namespace (netns.ts: one veth pair to the host; its
// iptables rules, its DNS range on `lo` and its resolver stay inside) against our controller, which listens on the
// host's end of the pair. A service with an intercept.v1 config (`echo.ziti`, one port) is hosted by `ziti demo
// echo-server` (the Go SDK) through that router; a client inside the namespace resolves echo.ziti with the router's
// DNS (the generated `resolver: udp://127.0.0.1:53`, an address of its `dnsSvcIpRange`), connects, and its bytes come
// back. Figures go to test/interop/results/tproxy.json. Skips when not root, without `ip` or `iptables`, or without
// the `ziti` binary.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { BlockList } from 'node:net';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import {
  create,
  enrolledIdentity,
  findZiti,
  grant,
  openPolicies,
  pipeThrough,
  readLog,
  startController,
  startEchoServer,
  tempDir,
  until,
  type NetworkController,
  type Program,
} from './network.js';
import { createNamespace, namespaceUnavailable, type Namespace } from './netns.js';
import { tunnelRouter, untilConnected } from './tunnel-router.js';

const RESULTS = join(dirname(fileURLToPath(import.meta.url)), 'results');
const INTERCEPT_V1 = 'g7cIWbcGg';
const PORT = 7777;
const unavailable = namespaceUnavailable();
const binary = unavailable === undefined ? findZiti() : undefined;

/**
 * Run inside the namespace with `node -e`: resolves argv[1] with the DNS server on 127.0.0.1 (the router's), connects
 * to the address on port argv[2], writes argv[3] and prints `{address, echoed}` once as much came back.
 */
const CLIENT = `
const dns = require('node:dns');
const net = require('node:net');
const [host, port, line] = process.argv.slice(1);
const fail = (code, text) => { process.stderr.write(text + '\\n'); process.exit(code); };
const resolver = new dns.promises.Resolver({ timeout: 2000, tries: 1 });
resolver.setServers(['127.0.0.1']);
resolver.resolve4(host).then(([address]) => {
  const socket = net.connect(Number(port), address);
  let echoed = '';
  setTimeout(() => fail(3, 'no echo from ' + address + ' (got ' + JSON.stringify(echoed) + ')'), 5000).unref();
  socket.on('connect', () => socket.write(line));
  socket.on('data', (chunk) => {
    echoed += chunk;
    if (echoed.length >= line.length) {
      process.stdout.write(JSON.stringify({ address, echoed }));
      socket.destroy();
    }
  });
  socket.on('error', (error) => fail(2, 'connect to ' + address + ': ' + error.message));
}, (error) => fail(1, 'resolve ' + host + ': ' + error.message));
`;

describe(
  'a tunneler-enabled v1.1.8 router in tproxy mode, in a network namespace',
  {
    skip: unavailable ?? (binary === undefined ? 'no ziti v1.1.8 binary (set ZITI_UPSTREAM_BIN)' : false),
  },
  () => {
    const ziti = binary!;
    let ns: Namespace;
    let work: string;
    let controller: NetworkController;
    let serviceId: string;
    let router: Awaited<ReturnType<typeof tunnelRouter>>;
    let routerRun: Program | undefined;
    let host: { id: string; file: string };
    let echo: { program: Program } | undefined;
    let started: number;
    const figures: Record<string, unknown> = {};
    const diagnostics = () =>
      `\n--- controller ---\n${readLog(controller.logFile).slice(-2500)}\n--- tproxy router ---\n${routerRun?.log.slice(-4000)}\n--- echo ---\n${echo?.program.log.slice(-1500)}`;
    /** One client connection from inside the namespace. */
    const dialInside = async (line: string) => {
      const { command, args } = ns.exec(process.execPath, ['-e', CLIENT, 'echo.ziti', String(PORT), line]);
      const reply = await pipeThrough(command, args, Buffer.alloc(0), work, 15_000);
      if (reply.code !== 0) return { error: reply.log.trim() || `exit ${reply.code ?? reply.signal}` };
      return JSON.parse(reply.output.toString()) as { address: string; echoed: string };
    };

    before(async () => {
      ns = createNamespace();
      work = tempDir('ziti-tproxy-interop-');
      const ours = await startController('ours', work, undefined, ns.hostIp);
      controller = ours.controller;
      await openPolicies(controller);
      const intercept = await create(controller, '/configs', {
        name: 'echo-intercept',
        configTypeId: INTERCEPT_V1,
        data: { protocols: ['tcp'], addresses: ['echo.ziti'], portRanges: [{ low: PORT, high: PORT }] },
      });
      serviceId = await create(controller, '/services', {
        name: 'echo',
        encryptionRequired: true,
        configs: [intercept],
      });
      host = await enrolledIdentity(ziti, controller, 'echo-host', work);
      router = await tunnelRouter(ziti, controller, ours.ctrlEndpoint, work, {
        name: 'tunnel-tproxy',
        mode: 'tproxy',
        address: ns.nsIp,
        netns: ns,
      });
      await grant(controller, 'Bind', serviceId, [host.id], 'echo-bind');
      await grant(controller, 'Dial', serviceId, [router.routerId], 'echo-dial');
    });

    after(async () => {
      await echo?.program.stop();
      await routerRun?.stop();
      await controller?.stop();
      ns?.remove();
      mkdirSync(RESULTS, { recursive: true });
      writeFileSync(join(RESULTS, 'tproxy.json'), `${JSON.stringify(figures, null, 2)}\n`);
      process.stdout.write(`tproxy interop figures: ${JSON.stringify(figures)}\n`);
      if (process.env.ZITI_INTEROP_KEEP) process.stdout.write(`kept: ${work}\n`);
      else if (work) rmSync(work, { recursive: true, force: true });
    });

    it('the generated config has a tproxy tunnel listener with the router’s resolver and DNS range', () => {
      const config = router.config();
      assert.match(config, /- binding: tunnel\n\s+options:\n\s+mode: tproxy/);
      assert.match(config, /resolver: udp:\/\/127\.0\.0\.1:53/);
      assert.match(config, /dnsSvcIpRange: 100\.64\.0\.1\/10/);
    });

    it('the router runs inside the namespace and connects to the controller over the veth pair', async () => {
      started = performance.now();
      routerRun = router.run();
      await untilConnected(router, routerRun, 'the tproxy router');
      figures.runToConnectedMs = Math.round(performance.now() - started);
    });

    it('the Go SDK echo server binds the service through the router in the namespace', async () => {
      echo = await startEchoServer(ziti, controller, host.file, 'echo', serviceId, work);
    });

    it('a client in the namespace resolves echo.ziti with the router’s DNS, connects, and its bytes come back', async () => {
      let last: unknown;
      const first = await until(
        () => `an intercepted echo (last: ${JSON.stringify(last)})${diagnostics()}`,
        async () => {
          last = await dialInside('first intercepted byte\n');
          return 'echoed' in (last as object) ? (last as { address: string; echoed: string }) : undefined;
        },
        60_000,
        250,
      );
      figures.runToFirstInterceptedByteMs = Math.round(performance.now() - started);
      assert.equal(first.echoed, 'first intercepted byte\n');
      const range = new BlockList();
      range.addSubnet('100.64.0.0', 10);
      assert.ok(range.check(first.address), `echo.ziti resolved to ${first.address}, outside dnsSvcIpRange`);
      figures.resolvedAddress = first.address;
      // Intercepted by the router's tproxy rules (not reached some other way): it wrote them in the namespace.
      assert.match(routerRun!.log, /Adding rule iptables -t mangle -A NF-INTERCEPT/);
      const lines = Array.from({ length: 10 }, (_, index) => `intercepted ${index}\n`);
      const replies = await Promise.all(lines.map((line) => dialInside(line)));
      assert.deepEqual(
        replies.map((reply) => ('echoed' in reply ? reply.echoed : reply.error)),
        lines,
      );
    });

    it('nothing of it reached the host: no route or address of the DNS range outside the namespace', () => {
      assert.doesNotMatch(execFileSync('ip', ['-4', 'addr', 'show', 'dev', 'lo'], { encoding: 'utf8' }), /100\.64\./);
      assert.match(
        execFileSync('ip', ['netns', 'exec', ns.name, 'ip', '-4', 'addr', 'show', 'dev', 'lo'], { encoding: 'utf8' }),
        /100\.64\.0\.1\/10/,
      );
    });
  },
);
