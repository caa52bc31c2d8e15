// Where a session create's CPU goes: builds the sessions phase's model (bench/session-model.ts) in a fresh home,
// with the controller under `node --cpu-prof`, loads `POST /sessions` (Dial) for the typical or heavy identity's
// services without or behind the posture check, each request naming an API session and service not used before,
// then prints the heaviest functions and the share of each package (bench/cpu-profile.ts).
// Usage: node --import tsx bench/profile-sessions.ts [typical|heavy] [plain|postured] [seconds] [identities]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { runCleanup } from './cleanup.js';
import { ADMIN_PASSWORD, ADMIN_USERNAME, startController } from './controller-process.js';
import { printProfile } from './cpu-profile.js';
import { loginAdmin } from './https-client.js';
import { runLoad } from './load.js';
import { ROOT } from './scenario-run.js';
import { seedIdentities } from './seed-identities.js';
import { closeModelConnections, loginMany, reportPosture, sessionModel, setUpSessionModel } from './session-model.js';
import { databaseBackendsCpu, freePort } from './server-process.js';
import { databaseUrlFor } from './bench-store.js';
import { say, settings } from './settings.js';

const [who = 'typical', set = 'plain', seconds = '5', identities = '1000'] = process.argv.slice(2);
if ((who !== 'typical' && who !== 'heavy') || (set !== 'plain' && set !== 'postured')) {
  throw new Error('usage: profile-sessions.ts [typical|heavy] [plain|postured] [seconds] [identities]');
}
const CREATES_PER_SECOND = 3_000;

const home = mkdtempSync(join(tmpdir(), 'ziti-profile-sessions-'));
const profileDir = mkdtempSync(join(tmpdir(), 'ziti-profile-'));
const port = await freePort();
try {
  // The first start creates the schema the seeder writes into.
  await (await startController(home, port)).stop();
  await seedIdentities(home, 0, Number(identities), () => undefined);
  const spawnedAt = performance.now();
  const controller = await startController(home, port, { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] });
  let loadFromMs = 0;
  try {
    const admin = await loginAdmin(controller.baseUrl, ADMIN_USERNAME, ADMIN_PASSWORD);
    const fixture = await setUpSessionModel(
      controller.baseUrl,
      admin,
      sessionModel(settings.sessionHeavyServices),
      say,
    );
    const user = fixture[who];
    const services = user[set];
    const tokens = await loginMany(
      controller.baseUrl,
      user,
      Math.ceil((CREATES_PER_SECOND * (Number(seconds) + 1)) / services.length),
    );
    await reportPosture(controller.baseUrl, tokens[0]!, fixture.osCheckId);
    const variantsFile = join(home, 'variants.json');
    // The next API session each request, as the stores bench sends them (PROFILE_ONE_SESSION=1: one API session's at a time).
    const tokensInTurn = process.env.PROFILE_ONE_SESSION !== '1';
    writeFileSync(
      variantsFile,
      JSON.stringify({
        tokens,
        bodies: services.map((serviceId) => JSON.stringify({ serviceId, type: 'Dial' })),
        tokensInTurn,
      }),
    );
    loadFromMs = performance.now() - spawnedAt;
    const url = `${controller.baseUrl}/edge/client/v1/sessions`;
    const headers = { accept: 'application/json', 'content-type': 'application/json' };
    // BENCH_STORE=postgres: the database backends' CPU too (the other half of a create's cost there).
    const databaseUrl = await databaseUrlFor(home);
    const databaseCpu =
      databaseUrl === undefined ? () => 0 : databaseBackendsCpu(new URL(databaseUrl).pathname.slice(1));
    const cpuBefore = controller.cpuSeconds();
    const databaseBefore = databaseCpu();
    const load = await runLoad(
      {
        url,
        method: 'POST',
        headers,
        variantsFile,
        connections: 10,
        durationSeconds: Number(seconds),
        warmupSeconds: 1,
      },
      ROOT,
    );
    const perCreate = (seconds: number) => (seconds * 1000) / Math.max(1, load.totalRequests + load.warmupRequests);
    const cpuMs = perCreate(controller.cpuSeconds() - cpuBefore);
    const databaseMs =
      url === undefined ? '' : `, database backends ${perCreate(databaseCpu() - databaseBefore).toFixed(3)} ms`;
    process.stdout.write(
      `${load.requestsPerSecond.toFixed(0)} creates/s (server CPU ${cpuMs.toFixed(3)} ms each, profiler on${databaseMs}), non-2xx ${load.non2xx}, repeated ${load.repeated ?? 0}\n`,
    );
  } finally {
    closeModelConnections();
    await controller.stop();
  }
  printProfile(profileDir, loadFromMs);
} finally {
  rmSync(home, { recursive: true, force: true });
  // BENCH_STORE=postgres: the run's database goes too.
  await runCleanup();
}
