// `npm run test:interop:router`: a real upstream v1.1.8 router against our controller. It enrolls with our JWT
// (`ziti router enroll`), runs (`ziti router run`, ctrl.endpoint = our control port, an edge listener, HA off), and
// must show online, reach SYNC_DONE with its hostname and URL, and hear of a login and a logout within a second;
// after a controller restart it reconnects; disabled it is dropped; deleted it is refused. The times (run → online,
// → SYNC_DONE, login/logout → router, restart → online again) are printed and written to
// test/interop/results/router-times.json.
// Finds the `ziti` binary as the upstream harness does (ZITI_UPSTREAM_BIN, else the cache); skips without one.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { freePort, startServer, type ServerProcess } from '../../bench/server-process.js';
import { ROOT } from '../../bench/scenario-run.js';
import { UpstreamUnavailable, upstreamBinary, zitiEnv } from '../../scripts/upstream.js';
import { ADMIN_PASSWORD, ADMIN_USERNAME } from '../upstream/peers.js';
import { httpsRequest } from '../../bench/https-client.js';
import { ourControllerArgs } from './network.js';
import { routerConfig } from './router-config.js';
import { certificateFingerprint } from '../../src/pki/fingerprint.js';

const RESULTS = join(dirname(fileURLToPath(import.meta.url)), 'results');
const MANAGEMENT = '/edge/management/v1';

function findBinary(): string | undefined {
  try {
    return upstreamBinary();
  } catch (error) {
    if (error instanceof UpstreamUnavailable) {
      process.stderr.write(`skipping the router interop run: ${error.message}\n`);
      return undefined;
    }
    throw error;
  }
}

const binary = findBinary();

describe(
  'a real v1.1.8 router against our controller',
  { skip: binary === undefined ? 'no ziti v1.1.8 binary (set ZITI_UPSTREAM_BIN)' : false },
  () => {
    let home: string;
    let work: string;
    let apiPort: number;
    let ctrlPort: number;
    let controller: ServerProcess | undefined;
    let router: ChildProcess | undefined;
    let routerLog = '';
    let token: string;
    let routerId: string;
    let edgePort: number;
    const times: Record<string, number> = {};
    /** The router writes its log as it goes: wait for a line. */
    const untilRouterLogged = async (pattern: RegExp, timeoutMs = 10_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!pattern.test(routerLog)) {
        if (Date.now() > deadline)
          throw new Error(
            `the router did not log ${String(pattern)} within ${timeoutMs} ms\n${routerLog.slice(-3000)}`,
          );
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };

    const api = async (method: string, path: string, body?: unknown) => {
      const reply = await httpsRequest(`https://127.0.0.1:${apiPort}${MANAGEMENT}${path}`, {
        method,
        headers: { 'content-type': 'application/json', ...(token ? { 'zt-session': token } : {}) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        timeoutMs: 10_000,
      });
      return { status: reply.status, json: reply.body as { data: Record<string, unknown> } | undefined };
    };
    const startOurs = async () => {
      const args = ourControllerArgs(home, apiPort, ctrlPort);
      controller = await startServer({
        name: 'our controller',
        args,
        port: apiPort,
        readyPath: '/edge/management/v1/version',
        cwd: ROOT,
        stdoutFile: join(work, 'controller.log'),
      });
      const login = await api('POST', '/authenticate?method=password', {
        username: ADMIN_USERNAME,
        password: ADMIN_PASSWORD,
      });
      token = String(login.json!.data.token);
    };
    const routerState = async () => (await api('GET', `/edge-routers/${routerId}`)).json!.data;
    /** Milliseconds until the router reads as `online` in GET /edge-routers/{id}. */
    const untilOnline = async (online: boolean, timeoutMs = 60_000) => {
      const started = Date.now();
      while ((await routerState()).isOnline !== online) {
        if (Date.now() - started > timeoutMs)
          throw new Error(
            `router not ${online ? 'online' : 'offline'} after ${timeoutMs} ms\n${routerLog.slice(-3000)}`,
          );
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return Date.now() - started;
    };
    const controllerLog = () => readFileSync(join(work, 'controller.log'), 'utf8');
    /** The controller writes its log a second at a time: wait for a line. */
    const untilLogged = async (pattern: RegExp, timeoutMs = 30_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!pattern.test(controllerLog())) {
        if (Date.now() > deadline) throw new Error(`not logged: ${String(pattern)}\n${controllerLog().slice(-3000)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };

    before(async () => {
      home = mkdtempSync(join(tmpdir(), 'ziti-ours-router-'));
      work = mkdtempSync(join(tmpdir(), 'ziti-router-interop-'));
      [apiPort, ctrlPort] = [await freePort(), await freePort()];
      await startOurs();
    });

    after(async () => {
      router?.kill('SIGKILL');
      await controller?.stop();
      mkdirSync(RESULTS, { recursive: true });
      writeFileSync(join(RESULTS, 'router-times.json'), `${JSON.stringify(times, null, 2)}\n`);
      process.stdout.write(`router interop times (ms): ${JSON.stringify(times)}\n`);
      // ZITI_INTEROP_KEEP=1 keeps the controller's home and the router's folder (logs, config, certificates).
      if (process.env.ZITI_INTEROP_KEEP) process.stdout.write(`kept: ${home} ${work}\n`);
      else for (const folder of [home, work]) rmSync(folder, { recursive: true, force: true });
    });

    it('enrolls with our JWT (ziti router enroll)', async () => {
      const created = await api('POST', '/edge-routers', { name: 'interop-router', isTunnelerEnabled: false });
      assert.equal(created.status, 201);
      routerId = String(created.json!.data.id);
      writeFileSync(join(work, 'router.jwt'), String((await routerState()).enrollmentJwt));
      edgePort = await freePort();
      writeFileSync(join(work, 'router.yml'), routerConfig(work, `tls:127.0.0.1:${ctrlPort}`, edgePort));
      const enroll = await run(
        binary!,
        ['router', 'enroll', join(work, 'router.yml'), '--jwt', join(work, 'router.jwt')],
        work,
      );
      assert.equal(enroll.code, 0, enroll.output);
      const state = await routerState();
      assert.equal(state.isVerified, true);
      assert.match(String(state.fingerprint), /^[0-9a-f]{40}$/);
    });

    it('runs (ziti router run) and shows online', async () => {
      // -v: the router logs each API session it is told of (debug), which the sync tests below read.
      router = spawn(binary!, ['router', 'run', '-v', join(work, 'router.yml')], {
        cwd: work,
        env: zitiEnv(),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      router.stdout!.on('data', (chunk: Buffer) => (routerLog += chunk.toString()));
      router.stderr!.on('data', (chunk: Buffer) => (routerLog += chunk.toString()));
      times.runToOnlineMs = await untilOnline(true);
      const state = await routerState();
      assert.equal((state.versionInfo as { version: string }).version, 'v1.1.8');
      await untilLogged(/"msg":"router connected"/);
    });

    it('completes the edge hello and API-session sync: SYNC_DONE with its hostname and supportedProtocols', async () => {
      const started = Date.now();
      while ((await routerState()).syncStatus !== 'SYNC_DONE') {
        if (Date.now() - started > 30_000) throw new Error(`no SYNC_DONE\n${routerLog.slice(-3000)}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      times.runToSyncDoneMs = times.runToOnlineMs! + (Date.now() - started);
      const state = await routerState();
      assert.equal(state.hostname, '127.0.0.1');
      assert.deepEqual(state.supportedProtocols, { tls: `tls://127.0.0.1:${edgePort}` });
      // The router applies the full state (our admin's session) once it holds its last chunk.
      await untilRouterLogged(/finished synchronizing api sessions \[count: 1,/);
    });

    it('hears of a login and a logout within a second', async () => {
      const login = await httpsRequest(`https://127.0.0.1:${apiPort}${MANAGEMENT}/authenticate?method=password`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: ADMIN_USERNAME, password: ADMIN_PASSWORD }),
        timeoutMs: 10_000,
      });
      const session = (login.body as { data: { id: string; token: string } }).data;
      const added = Date.now();
      await untilRouterLogged(new RegExp(`"apiSessionToken":"${session.token}".*"msg":"adding apiSession"`), 1000);
      times.loginToRouterMs = Date.now() - added;
      await httpsRequest(`https://127.0.0.1:${apiPort}/edge/client/v1/current-api-session`, {
        method: 'DELETE',
        headers: { 'zt-session': session.token },
        timeoutMs: 10_000,
      });
      const removed = Date.now();
      await untilRouterLogged(
        new RegExp(`removing api session \\[token: ${session.token}\\] \\[id: ${session.id}\\]`),
        1000,
      );
      times.logoutToRouterMs = Date.now() - removed;
    });

    it('reconnects after a controller restart', async () => {
      const connections = () =>
        controllerLog()
          .split('\n')
          .filter((line) => line.includes('"msg":"router connected"')).length;
      const before = connections();
      await controller!.stop();
      // A graceful stop marks the routers it held offline.
      await untilLogged(/"reason":"controller stopping","msg":"router disconnected"/);
      const stopped = Date.now();
      await startOurs();
      const started = Date.now();
      assert.equal((await routerState()).isOnline, false);
      while (connections() === before) {
        if (Date.now() - started > 60_000) throw new Error(`no reconnection\n${routerLog.slice(-3000)}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await untilOnline(true);
      times.restartToOnlineMs = Date.now() - started;
      times.downtimeToOnlineMs = Date.now() - stopped;
    });

    it('is taken back at once by a controller killed (kill -9) and started again on its home', async () => {
      process.kill(controller!.pid, 'SIGKILL');
      await controller!.stop();
      const restarted = Date.now();
      await startOurs();
      times.killedRestartToOnlineMs = (await untilOnline(true, 30_000)) + (Date.now() - restarted);
      assert.doesNotMatch(controllerLog(), /router already connected to controller instance/);
    });

    /** Starts the router (again); `extend`: with `--extend`, which renews its certificates at once. */
    const runRouter = (extra: string[] = []) => {
      router = spawn(binary!, ['router', 'run', '-v', ...extra, join(work, 'router.yml')], {
        cwd: work,
        env: zitiEnv(),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      router.stdout!.on('data', (chunk: Buffer) => (routerLog += chunk.toString()));
      router.stderr!.on('data', (chunk: Buffer) => (routerLog += chunk.toString()));
    };
    const stopRouter = async () => {
      const exited = new Promise((resolve) => router!.once('exit', resolve));
      router!.kill('SIGTERM');
      await exited;
      await untilOnline(false, 30_000);
    };

    it('renews its certificates with ziti router run --extend, and is online on the new ones after a restart', async () => {
      const old = String((await routerState()).fingerprint);
      const oldCert = readFileSync(join(work, 'router.cert'), 'utf8');
      await stopRouter();
      routerLog = '';
      const asked = Date.now();
      runRouter(['--extend']);
      await untilRouterLogged(/enrollment extension done/, 60_000);
      times.extendToRenewedMs = Date.now() - asked;
      const renewed = await routerState();
      const newCert = readFileSync(join(work, 'router.cert'), 'utf8');
      assert.notEqual(newCert, oldCert);
      assert.notEqual(renewed.fingerprint, old);
      assert.equal(renewed.fingerprint, certificateFingerprint(newCert));
      assert.equal(renewed.unverifiedFingerprint ?? null, null);
      await stopRouter();
      runRouter();
      times.renewedRestartToOnlineMs = await untilOnline(true);
    });

    const agent = (command: string) =>
      run(binary!, ['agent', 'router', command, '--pid', String(router!.pid), '--timeout', '10s'], work);

    it('drains and undrains through ziti agent router quiesce|dequiesce', async () => {
      const service = await api('POST', '/services', { name: 'interop-drain', encryptionRequired: true });
      const created = await api('POST', '/terminators', {
        service: service.json!.data.id,
        router: routerId,
        binding: 'transport',
        address: 'tcp:127.0.0.1:9',
        precedence: 'required',
      });
      assert.equal(created.status, 201);
      const terminator = String(created.json!.data.id);
      const precedence = async () => (await api('GET', `/terminators/${terminator}`)).json!.data.precedence;
      const quiesced = await agent('quiesce');
      assert.equal(quiesced.code, 0, quiesced.output);
      assert.equal(await precedence(), 'failed');
      const dequiesced = await agent('dequiesce');
      assert.equal(dequiesced.code, 0, dequiesced.output);
      assert.equal(await precedence(), 'required');
      assert.equal((await api('DELETE', `/terminators/${terminator}`)).status, 200);
    });

    it('drops the router when it is disabled, and takes it back when enabled', async () => {
      assert.equal((await api('PATCH', `/edge-routers/${routerId}`, { disabled: true })).status, 200);
      times.disableToOfflineMs = await untilOnline(false, 15_000);
      await untilLogged(/"reason":"router disabled"/);
      assert.equal((await api('PATCH', `/edge-routers/${routerId}`, { disabled: false })).status, 200);
      times.enableToOnlineMs = await untilOnline(true);
    });

    it('refuses the router once it is deleted (ziti agent router decommission)', async () => {
      const decommissioned = await agent('decommission');
      assert.equal(decommissioned.code, 0, decommissioned.output);
      assert.equal((await api('GET', `/edge-routers/${routerId}`)).status, 404);
      await untilLogged(/"reason":"unknown\/unenrolled router","msg":"router connection refused"/);
    });
  },
);

function run(binary: string, args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { cwd, env: zitiEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}
