// `npm run test:interop:migrate`: an upstream v1.1.8 network moved over with `migrate:upstream` (issue 32). On
// upstream: a controller, a running edge router, identities enrolled by certificate (`ziti edge enroll`), by password
// and with MFA, a pending enrollment, an echo service. Upstream stops; the network is migrated into SQLite, then
// into PostgreSQL when ZITI_TEST_DATABASE_URL is set, and ours starts on the same ports: the unchanged router comes
// back online, the old host identity binds, the old client's dial echoes, the old password and MFA secret log in,
// the pending JWT enrolls. Figures go to test/interop/results/migrate.json. Skips without the `ziti` binary.
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { startServer, type ServerProcess } from '../../bench/server-process.js';
import { ROOT } from '../../bench/scenario-run.js';
import { migrateUpstream } from '../../src/migrate/migrate-upstream.js';
import { createScratchSchema, type ScratchSchema } from '../../src/store/postgres/scratch-schema.js';
import { startUpstream, type UpstreamController } from '../../scripts/upstream.js';
import { ADMIN_PASSWORD, ADMIN_USERNAME } from '../upstream/peers.js';
import { secretOf, totpCode } from '../support/mfa.js';
import { upstreamClient } from '../migrate/upstream-client.js';
import {
  echoService,
  enrolledIdentity,
  findZiti,
  managed,
  openPolicies,
  readLog,
  runZiti,
  startEchoServer,
  startRouter,
  tempDir,
  until,
  zcat,
  type NetworkController,
  type Router,
} from './network.js';

const RESULTS = join(dirname(fileURLToPath(import.meta.url)), 'results');
const binary = findZiti();
const PASSWORD = 'Old-Password-1';

describe(
  'an upstream v1.1.8 network moved over with migrate:upstream',
  { skip: binary === undefined ? 'no ziti v1.1.8 binary (set ZITI_UPSTREAM_BIN)' : false },
  () => {
    const ziti = binary!;
    let work: string;
    let upstream: UpstreamController;
    let router: Router;
    let ours: ServerProcess | undefined;
    let scratch: ScratchSchema | undefined;
    let host: { id: string; file: string };
    let client: { id: string; file: string };
    let serviceId: string;
    let mfaSecret: string;
    let recoveryCodes: string[];
    let pendingJwt: string;
    const figures: Record<string, unknown> = {};
    const oursController = (): NetworkController =>
      managed('ours', () => ours?.pid ?? 0, join(work, 'ours.log'), upstream.caFile, upstream.baseUrl, {
        stop: async () => ours?.stop(),
        restart: () => Promise.reject(new Error('not here')),
      });

    before(async () => {
      work = tempDir('ziti-migrate-interop-');
      upstream = await startUpstream({ username: ADMIN_USERNAME, password: ADMIN_PASSWORD, keepHome: true });
      const controller = managed('upstream', () => upstream.pid, upstream.logFile, upstream.caFile, upstream.baseUrl, {
        stop: () => upstream.stop(),
        restart: () => Promise.reject(new Error('not here')),
      });
      router = await startRouter(ziti, controller, `tls:127.0.0.1:${upstream.port}`, work, { name: 'old-router' });
      await openPolicies(controller);
      host = await enrolledIdentity(ziti, controller, 'old-host', work);
      client = await enrolledIdentity(ziti, controller, 'old-client', work);
      serviceId = await echoService(controller, 'echo', host.id, client.id, true);
      await enrollPasswordAndMfa(controller);
    });

    /** A password identity, an MFA identity (verified with a code), and an identity left pending. */
    async function enrollPasswordAndMfa(controller: NetworkController): Promise<void> {
      const rest = upstreamClient(upstream.baseUrl);
      const admin = await rest.login(ADMIN_USERNAME, ADMIN_PASSWORD);
      for (const name of ['old-password', 'old-mfa']) {
        const id = await rest.create(
          '/edge/management/v1/identities',
          { name, type: 'User', isAdmin: false, enrollment: { updb: name } },
          admin,
        );
        await rest.enrollUpdb(await rest.enrollmentToken(admin, id), PASSWORD);
      }
      const session = await rest.login('old-mfa', PASSWORD);
      await rest.json('POST', '/edge/client/v1/current-identity/mfa', session);
      const mfa = (await rest.json('GET', '/edge/client/v1/current-identity/mfa', session)) as {
        data: { provisioningUrl: string; recoveryCodes: string[] };
      };
      mfaSecret = secretOf(mfa.data.provisioningUrl);
      recoveryCodes = mfa.data.recoveryCodes;
      await rest.json('POST', '/edge/client/v1/current-identity/mfa/verify', session, {
        code: totpCode(mfaSecret, new Date()),
      });
      const pendingId = await rest.create(
        '/edge/management/v1/identities',
        { name: 'old-pending', type: 'Device', isAdmin: false, enrollment: { ott: true } },
        admin,
      );
      pendingJwt = await rest.enrollmentJwt(admin, pendingId);
      assert.ok(controller.baseUrl);
    }

    after(async () => {
      await router?.program.stop();
      await ours?.stop();
      await upstream?.stop();
      await scratch?.drop();
      mkdirSync(RESULTS, { recursive: true });
      writeFileSync(join(RESULTS, 'migrate.json'), `${JSON.stringify(figures, null, 2)}\n`);
      process.stdout.write(`migrate interop figures: ${JSON.stringify(figures)}\n`);
      if (process.env.ZITI_INTEROP_KEEP) process.stdout.write(`kept: ${work} ${upstream?.home}\n`);
      else for (const folder of [work, upstream?.home]) if (folder) rmSync(folder, { recursive: true, force: true });
    });

    /** Migrates the stopped upstream home into `home` (and `databaseUrl`), then starts ours on upstream's ports. */
    async function moveAndStart(label: string, home: string, databaseUrl: string | undefined): Promise<void> {
      const started = performance.now();
      const report = await migrateUpstream({
        settingsFile: join(upstream.home, 'ctrl.yaml'),
        home,
        databaseUrl,
        isDryRun: false,
        env: {},
      });
      figures[`${label}: import ms`] = Math.round(performance.now() - started);
      figures[`${label}: imported`] = Object.fromEntries(report.imported?.written ?? []);
      const args = ['src/main.ts', '--home', home, '--log-level', 'info'];
      ours = await startServer({
        name: 'our controller',
        args: databaseUrl ? [...args, '--database-url', databaseUrl] : args,
        port: upstream.port,
        readyPath: '/edge/management/v1/version',
        cwd: ROOT,
        stdoutFile: join(work, 'ours.log'),
      });
    }

    async function checkNetwork(label: string): Promise<void> {
      const controller = oursController();
      const back = performance.now();
      await until(
        () =>
          `the old router online on ours\n${router.program.log.slice(-2000)}\n${readLog(join(work, 'ours.log')).slice(-2000)}`,
        async () => (await controller.api('GET', `/edge-routers/${router.routerId}`)).data.isOnline === true,
        90_000,
        500,
      );
      figures[`${label}: router online after ms`] = Math.round(performance.now() - back);
      const echo = await startEchoServer(ziti, controller, host.file, 'echo', serviceId, work);
      try {
        const reply = await zcat(ziti, client.file, 'echo', Buffer.from('moved over\n'), work);
        assert.equal(reply.output.toString(), 'moved over\n', reply.log.slice(-1500));
      } finally {
        await echo.program.stop();
      }
      const rest = upstreamClient(upstream.baseUrl);
      await rest.login('old-password', PASSWORD);
      const session = await rest.login('old-mfa', PASSWORD);
      await rest.json('POST', '/edge/client/v1/authenticate/mfa', session, { code: totpCode(mfaSecret, new Date()) });
      const second = await rest.login('old-mfa', PASSWORD);
      await rest.json('POST', '/edge/client/v1/authenticate/mfa', second, { code: recoveryCodes.shift() });
    }

    it('moves into SQLite: the router comes back, old identities bind, dial and log in, the pending JWT enrolls', async () => {
      await upstream.stop();
      await moveAndStart('sqlite', join(work, 'home-sqlite'), undefined);
      await checkNetwork('sqlite');
      writeFileSync(join(work, 'pending.jwt'), pendingJwt);
      const enroll = await runZiti(ziti, ['edge', 'enroll', '--jwt', 'pending.jwt', '--out', 'pending.json'], work);
      assert.equal(enroll.code, 0, enroll.output);
      await ours?.stop();
      ours = undefined;
    });

    it(
      'moves into PostgreSQL as well',
      { skip: process.env.ZITI_TEST_DATABASE_URL ? false : 'ZITI_TEST_DATABASE_URL not set' },
      async () => {
        scratch = await createScratchSchema(process.env.ZITI_TEST_DATABASE_URL ?? '', 'ziti_migrate_interop');
        await moveAndStart('postgres', join(work, 'home-postgres'), scratch.url);
        await checkNetwork('postgres');
      },
    );
  },
);
