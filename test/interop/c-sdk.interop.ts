// `npm run test:interop:c-sdk`: C SDK 1.0.12 traffic through a real upstream v1.1.8 router controlled by ours.
// ziti-edge-tunnel v1.1.5 `run-host` hosts a service (host.v1 config) in front of a local TCP server that greets and
// echoes; the Go SDK's `ziti demo zcat` and the C SDK's `ziti-ncat` dial it: bytes go both ways. The C SDK's
// `sample-host server` (a byte counter) is dialled by zcat. Binaries: ZITI_C_SDK_BIN (a folder) or
// ~/.cache/ziti-upstream/c-sdk/bin, and the `ziti` v1.1.8 binary; skips without them.
// ZITI_INTEROP_CONTROLLER=upstream runs the same against an upstream v1.1.8 controller (to tell our faults from the clients').
import assert from 'node:assert/strict';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { upstreamCacheDir } from '../../scripts/upstream.js';
import {
  create,
  echoService,
  pipeThrough,
  enrolledIdentity,
  findZiti,
  openPolicies,
  Program,
  readLog,
  startController,
  startRouter,
  tempDir,
  terminators,
  until,
  zcat,
  type NetworkController,
} from './network.js';

const C_BIN = process.env.ZITI_C_SDK_BIN ?? join(upstreamCacheDir(), 'c-sdk', 'bin');
const tunnel = join(C_BIN, 'ziti-edge-tunnel');
const sampleHost = join(C_BIN, 'sample-host');
const ncat = join(C_BIN, 'ziti-ncat');
const binary = findZiti();
const skip =
  binary === undefined
    ? 'no ziti v1.1.8 binary'
    : ![tunnel, sampleHost, ncat].every((file) => existsSync(file))
      ? `no C SDK programs in ${C_BIN} (set ZITI_C_SDK_BIN)`
      : false;
const GREETING = 'hello from the tcp server\n';

describe('C SDK traffic through a real v1.1.8 router controlled by ours', { skip }, () => {
  const ziti = binary!;
  let work: string;
  let controller: NetworkController;
  let router: Awaited<ReturnType<typeof startRouter>>;
  let host: { id: string; file: string };
  let client: { id: string; file: string };
  let server: net.Server;
  const received: Buffer[] = [];
  const programs: Program[] = [];
  const diagnostics = () =>
    `\n--- controller ---\n${readLog(controller.logFile).slice(-2500)}\n--- programs ---\n${programs.map((p) => p.log.slice(-1500)).join('\n---\n')}`;

  before(async () => {
    work = tempDir('ziti-c-sdk-interop-');
    const started = await startController(
      process.env.ZITI_INTEROP_CONTROLLER === 'upstream' ? 'upstream' : 'ours',
      work,
    );
    controller = started.controller;
    router = await startRouter(ziti, controller, started.ctrlEndpoint, work);
    await openPolicies(controller);
    host = await enrolledIdentity(ziti, controller, 'c-host', work);
    client = await enrolledIdentity(ziti, controller, 'c-client', work);
    // The local server the tunneller reaches: greets, then echoes, and keeps what it was sent.
    server = net.createServer((socket) => {
      socket.write(GREETING);
      socket.on('data', (chunk) => {
        received.push(chunk);
        socket.write(chunk);
      });
      socket.on('end', () => socket.end());
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });

  after(async () => {
    for (const program of programs) await program.stop();
    await router?.program.stop();
    await controller?.stop();
    server?.close();
    if (process.env.ZITI_INTEROP_KEEP) {
      programs.forEach((program, index) => writeFileSync(join(work, `program-${index}.log`), program.log));
      writeFileSync(join(work, 'router.log'), router?.program.log ?? '');
      process.stdout.write(`kept: ${work}\n`);
    } else rmSync(work, { recursive: true, force: true });
  });

  it('ziti-edge-tunnel run-host hosts a TCP server that the Go SDK (zcat) reaches: bytes both ways', async () => {
    const types = await controller.api('GET', `/config-types?filter=${encodeURIComponent('name="host.v1"')}`);
    const hostV1 = String((types.data as unknown as { id: string }[])[0]!.id);
    const port = (server.address() as net.AddressInfo).port;
    const configId = await create(controller, '/configs', {
      name: 'tcp-host',
      configTypeId: hostV1,
      data: { protocol: 'tcp', address: '127.0.0.1', port },
    });
    const serviceId = await echoService(controller, 'tcp', host.id, client.id, true);
    assert.equal((await controller.api('PATCH', `/services/${serviceId}`, { configs: [configId] })).status, 200);
    const tunneller = new Program(tunnel, ['run-host', '-i', host.file, '-v', '4'], work);
    programs.push(tunneller);
    await until(
      () => `a terminator of the tunneller${diagnostics()}`,
      async () => (await terminators(controller, serviceId)).length > 0,
      60_000,
      200,
    );
    const reply = await zcat(ziti, client.file, 'tcp', Buffer.from('go sdk to tcp\n'), work);
    assert.equal(reply.code, 0, `${reply.log.slice(-1500)}${diagnostics()}`);
    assert.equal(reply.output.toString(), `${GREETING}go sdk to tcp\n`);
    assert.equal(Buffer.concat(received).toString(), 'go sdk to tcp\n');
  });

  it('the C SDK client (ziti-ncat) reaches the same TCP server through the tunneller: bytes both ways', async () => {
    // (sample-host client sends app data that is not JSON, which ziti-edge-tunnel's hosting refuses: ziti-ncat sends none.)
    received.length = 0;
    const reply = await pipeThrough(
      ncat,
      [client.file, 'tcp'],
      Buffer.from('c sdk to tcp\n'),
      work,
      30_000,
      process.env.ZITI_INTEROP_KEEP ? { ZITI_LOG: '5' } : {},
    );
    // ziti-ncat 1.0.12 calls ziti_shutdown once the bridge closes, logs out, frees its context and ~10 s later crashes
    // (SIGSEGV, a timer of the freed context) — against upstream's controller too (ZITI_INTEROP_CONTROLLER=upstream,
    // ZITI_INTEROP_KEEP=1 keeps its log at ZITI_LOG=5): the exchange is what is tested; the exit is reported, not asserted.
    if (process.env.ZITI_INTEROP_KEEP) writeFileSync(join(work, 'ziti-ncat.log'), reply.log);
    process.stdout.write(
      `ziti-ncat exited: code ${reply.code} signal ${reply.signal} after ${Math.round(reply.ms)} ms\n`,
    );
    assert.equal(reply.output.toString(), `${GREETING}c sdk to tcp\n`, `${reply.log.slice(-1500)}${diagnostics()}`);
    assert.equal(Buffer.concat(received).toString(), 'c sdk to tcp\n');
  });

  it('the C SDK hosts (sample-host server, a byte counter) and the Go SDK dials it', async () => {
    const serviceId = await echoService(controller, 'byte-counter', host.id, client.id, true);
    const counter = new Program('stdbuf', ['-oL', sampleHost, 'server', host.file, 'byte-counter'], work);
    programs.push(counter);
    await until(
      () => `a terminator of the C host${diagnostics()}`,
      async () => (await terminators(controller, serviceId)).length > 0,
      60_000,
      200,
    );
    const reply = await zcat(ziti, client.file, 'byte-counter', Buffer.from('12345'), work);
    assert.equal(reply.code, 0, `${reply.log.slice(-1500)}${diagnostics()}`);
    // The byte counter greets, answers the count of what it read, and closes its side on our EOF.
    assert.equal(reply.output.toString(), 'Hello from byte counter!5');
    await until(
      () => `the byte counter's log${diagnostics()}`,
      () => Promise.resolve(counter.log.includes('client sent:12345')),
      5000,
    );
  });
});
