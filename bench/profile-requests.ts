// Where one request's CPU goes: starts the controller on a kept bench home under `node --cpu-prof`, loads one
// path with autocannon, stops it, and prints the heaviest functions (self time) and the share of each package.
// Usage: BENCH_KEEP_HOME=1 BENCH_PHASES=platform npm run bench, then
//        node --import tsx bench/profile-requests.ts <home> <path> [seconds] [typical|heavy]
// The admin logs in, or the scale model's typical or heavy identity (BENCH_PHASES=scale keeps a home with them).
// A write: PROFILE_METHOD=PATCH PROFILE_BODIES='[{…},{…}]' (sent in turn, e.g. two attribute sets), and
// PROFILE_CONNECTIONS=1 to send one at a time as the bench's role-attribute change does.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { ADMIN_PASSWORD, ADMIN_USERNAME } from './controller-process.js';
import { loginAdmin, loginWithPassword } from './https-client.js';
import { scaleIdentities } from './scale-model.js';
import { runLoad, type LoadSpec, type RequestVariants } from './load.js';
import { ROOT } from './scenario-run.js';
import { freePort, startServer } from './server-process.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [home, path, seconds = '5', who] = process.argv.slice(2);
if (!home || !path || (who !== undefined && who !== 'typical' && who !== 'heavy')) {
  throw new Error('usage: profile-requests.ts <home> <path> [seconds] [typical|heavy]');
}

async function logIn(baseUrl: string): Promise<string> {
  if (!who) return loginAdmin(baseUrl, ADMIN_USERNAME, ADMIN_PASSWORD);
  const token = await loginWithPassword(`${baseUrl}/edge/client/v1`, scaleIdentities[who as 'typical' | 'heavy'].username, scaleIdentities.password);
  if (typeof token !== 'string') throw new Error(`the ${who} identity's login answered ${token.status}`);
  return token;
}

const profileDir = mkdtempSync(join(tmpdir(), 'ziti-profile-'));
const port = await freePort();
const spawnedAt = performance.now();
let loadFromMs = 0;
const args = [`--cpu-prof`, `--cpu-prof-dir=${profileDir}`, 'src/main.ts', '--home', home, '--port', String(port), '--bind', '127.0.0.1'];
args.push('--password', ADMIN_PASSWORD, '--log-level', 'warn');
const controller = await startServer({ name: 'controller', args, port, readyPath: '/edge/client/v1/version', cwd: ROOT });
try {
  const token = await logIn(controller.baseUrl);
  loadFromMs = performance.now() - spawnedAt;
  const headers = { accept: 'application/json', 'content-type': 'application/json', 'zt-session': token };
  const method = (process.env.PROFILE_METHOD ?? 'GET') as LoadSpec['method'];
  const connections = Number(process.env.PROFILE_CONNECTIONS ?? 10);
  const bodies = process.env.PROFILE_BODIES ? (JSON.parse(process.env.PROFILE_BODIES) as unknown[]).map((body) => JSON.stringify(body)) : undefined;
  const variantsFile = join(profileDir, 'variants.json');
  if (bodies) writeFileSync(variantsFile, JSON.stringify({ tokens: [token], bodies } satisfies RequestVariants));
  const url = `${controller.baseUrl}${path}`;
  const load = await runLoad({ url, method, headers, connections, durationSeconds: Number(seconds), warmupSeconds: 1, ...(bodies ? { variantsFile } : {}) }, ROOT);
  process.stdout.write(`${load.requestsPerSecond.toFixed(0)} req/s, non-2xx ${load.non2xx}\n`);
} finally {
  await controller.stop();
}

const file = readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'));
if (!file) throw new Error(`no profile written in ${profileDir}`);
const profile = JSON.parse(readFileSync(join(profileDir, file), 'utf8')) as CpuProfile;
const selfMs = new Map<number, number>();
// Only the samples taken under load: start-up (module loading, tsx compiling) is not a request's cost.
let elapsedMs = 0;
profile.samples.forEach((id, index) => {
  const deltaMs = (profile.timeDeltas[index] ?? 0) / 1000;
  elapsedMs += deltaMs;
  if (elapsedMs >= loadFromMs) selfMs.set(id, (selfMs.get(id) ?? 0) + deltaMs);
});

const where = (node: ProfileNode) => {
  const url = node.callFrame.url;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
  if (pkg) return pkg;
  if (url.includes('/src/')) return `src/${url.split('/src/')[1]!.split('/')[0]}`;
  return url.startsWith('node:') ? 'node' : node.callFrame.functionName.startsWith('(') ? node.callFrame.functionName : 'other';
};
const idle = new Set(['(idle)', '(program)', '(garbage collector)']);
const busy = profile.nodes.filter((node) => !idle.has(node.callFrame.functionName) || node.callFrame.functionName === '(garbage collector)');
const total = busy.reduce((sum, node) => sum + (selfMs.get(node.id) ?? 0), 0);
const share = (ms: number) => `${((ms / total) * 100).toFixed(1)}%`;

const byPackage = new Map<string, number>();
const byFunction = new Map<string, number>();
for (const node of busy) {
  const ms = selfMs.get(node.id) ?? 0;
  byPackage.set(where(node), (byPackage.get(where(node)) ?? 0) + ms);
  const name = `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.split('/').slice(-2).join('/')}:${node.callFrame.lineNumber + 1}`;
  byFunction.set(name, (byFunction.get(name) ?? 0) + ms);
}
// Inclusive: a sample counts once for every package on its stack (kysely called from src/crud counts for both).
const parent = new Map<number, ProfileNode>();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node);
const inclusive = new Map<string, number>();
for (const node of busy) {
  const ms = selfMs.get(node.id) ?? 0;
  const seen = new Set<string>();
  for (let at: ProfileNode | undefined = node; at; at = parent.get(at.id)) seen.add(where(at));
  for (const name of seen) inclusive.set(name, (inclusive.get(name) ?? 0) + ms);
}
const top = (map: Map<string, number>, n: number) => [...map].sort((a, b) => b[1] - a[1]).slice(0, n);
process.stdout.write(`busy ${total.toFixed(0)} ms (profile: ${join(profileDir, file)})\n\nself time by package:\n`);
for (const [name, ms] of top(byPackage, 15)) process.stdout.write(`  ${share(ms).padStart(6)}  ${name}\n`);
process.stdout.write('\ntime with the package on the stack:\n');
for (const [name, ms] of top(inclusive, 15)) process.stdout.write(`  ${share(ms).padStart(6)}  ${name}\n`);
process.stdout.write('\nheaviest functions (self time):\n');
for (const [name, ms] of top(byFunction, 30)) process.stdout.write(`  ${share(ms).padStart(6)}  ${name}\n`);
