// Where one request's CPU goes: starts the controller on a kept bench home under `node --cpu-prof`, loads one
// path with autocannon, stops it, and prints the heaviest functions (self time) and the share of each package.
// Usage: BENCH_KEEP_HOME=1 BENCH_PHASES=platform npm run bench, then
//        node --import tsx bench/profile-requests.ts <home> <path> [seconds] [typical|heavy]
// The admin logs in, or the scale model's typical or heavy identity (BENCH_PHASES=scale keeps a home with them).
// A write: PROFILE_METHOD=PATCH PROFILE_BODIES='[{…},{…}]' (sent in turn, e.g. two attribute sets), and
// PROFILE_CONNECTIONS=1 to send one at a time as the bench's role-attribute change does. PROFILE_PATHS='["…","…"]'
// asks for those paths in turn instead (first reads of different queries rather than one repeated).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { ADMIN_PASSWORD, ADMIN_USERNAME } from './controller-process.js';
import { loginAdmin, loginWithPassword } from './https-client.js';
import { scaleIdentities } from './scale-model.js';
import { runLoad, type LoadSpec, type RequestVariants } from './load.js';
import { ROOT } from './scenario-run.js';
import { freePort, loopbackControllerArgs, startServer } from './server-process.js';
import { printProfile } from './cpu-profile.js';

const [home, path, seconds = '5', who] = process.argv.slice(2);
if (!home || !path || (who !== undefined && who !== 'typical' && who !== 'heavy')) {
  throw new Error('usage: profile-requests.ts <home> <path> [seconds] [typical|heavy]');
}

async function logIn(baseUrl: string): Promise<string> {
  if (!who) return loginAdmin(baseUrl, ADMIN_USERNAME, ADMIN_PASSWORD);
  const token = await loginWithPassword(
    `${baseUrl}/edge/client/v1`,
    scaleIdentities[who as 'typical' | 'heavy'].username,
    scaleIdentities.password,
  );
  if (typeof token !== 'string') throw new Error(`the ${who} identity's login answered ${token.status}`);
  return token;
}

const profileDir = mkdtempSync(join(tmpdir(), 'ziti-profile-'));
const port = await freePort();
const spawnedAt = performance.now();
let loadFromMs = 0;
const args = [`--cpu-prof`, `--cpu-prof-dir=${profileDir}`, ...loopbackControllerArgs(home, port)];
args.push('--password', ADMIN_PASSWORD, '--log-level', 'warn');
const controller = await startServer({
  name: 'controller',
  args,
  port,
  readyPath: '/edge/client/v1/version',
  cwd: ROOT,
});
try {
  const token = await logIn(controller.baseUrl);
  loadFromMs = performance.now() - spawnedAt;
  const method = (process.env.PROFILE_METHOD ?? 'GET') as LoadSpec['method'];
  const connections = Number(process.env.PROFILE_CONNECTIONS ?? 10);
  const bodies = process.env.PROFILE_BODIES
    ? (JSON.parse(process.env.PROFILE_BODIES) as unknown[]).map((body) => JSON.stringify(body))
    : undefined;
  const headers = {
    accept: 'application/json',
    'zt-session': token,
    ...(bodies ? { 'content-type': 'application/json' } : {}),
  };
  const paths = process.env.PROFILE_PATHS ? (JSON.parse(process.env.PROFILE_PATHS) as string[]) : undefined;
  const variantsFile = join(profileDir, 'variants.json');
  const varied = bodies || paths;
  if (varied)
    writeFileSync(
      variantsFile,
      JSON.stringify({
        ...(bodies ? { tokens: [token], bodies } : {}),
        ...(paths ? { paths } : {}),
      } satisfies RequestVariants),
    );
  const url = `${controller.baseUrl}${path}`;
  const load = await runLoad(
    {
      url,
      method,
      headers,
      connections,
      durationSeconds: Number(seconds),
      warmupSeconds: 1,
      ...(varied ? { variantsFile } : {}),
    },
    ROOT,
  );
  process.stdout.write(`${load.requestsPerSecond.toFixed(0)} req/s, non-2xx ${load.non2xx}\n`);
} finally {
  await controller.stop();
}

printProfile(profileDir, loadFromMs);
