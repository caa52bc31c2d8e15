// `npm run bench:logins`: a burst of concurrent password logins of distinct users (BENCH_LOGINS, default 500), all
// of which must succeed, while an attacker guesses one user's password from the same address: the attacker is
// throttled (401s, then 429s) and nobody else notices. Reports latencies; writes bench/results/logins-*.json.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installSignalCleanup, onCleanup, runCleanup } from './cleanup.js';
import { ADMIN_PASSWORD, ADMIN_USERNAME, startController } from './controller-process.js';
import { httpsRequest, loginAdmin } from './https-client.js';
import { ROOT } from './scenario-run.js';
import { freePort } from './server-process.js';
import { say } from './settings.js';

const count = Number(process.env.BENCH_LOGINS ?? 500);
const guesses = Number(process.env.BENCH_GUESSES ?? 50);

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

async function createUsers(
  api: string,
  token: string,
  total: number,
): Promise<{ username: string; password: string }[]> {
  const users: { username: string; password: string }[] = [];
  const post = async (path: string, body: unknown) => {
    const reply = await httpsRequest(`${api}/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'zt-session': token },
      body: JSON.stringify(body),
    });
    if (reply.status !== 201)
      throw new Error(`POST ${path} answered ${reply.status}: ${JSON.stringify(reply.body).slice(0, 200)}`);
    return (reply.body as { data: { id: string } }).data.id;
  };
  for (let start = 0; start < total; start += 25) {
    const batch = Array.from({ length: Math.min(25, total - start) }, (_, i) => start + i);
    users.push(
      ...(await Promise.all(
        batch.map(async (index) => {
          const identityId = await post('identities', { name: `login-bench-${index}`, type: 'User', isAdmin: false });
          const user = { username: `login-bench-user-${index}`, password: `Login-Bench-${index}!` };
          await post('authenticators', { method: 'updb', identityId, ...user });
          return user;
        }),
      )),
    );
  }
  return users;
}

async function timedLogin(api: string, username: string, password: string): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const reply = await httpsRequest(`${api}/authenticate?method=password`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
    timeoutMs: 60_000,
  });
  return { status: reply.status, ms: performance.now() - started };
}

async function main(): Promise<void> {
  installSignalCleanup();
  const home = mkdtempSync(join(tmpdir(), 'ziti-bench-logins-'));
  onCleanup(() => Promise.resolve(rmSync(home, { recursive: true, force: true })));
  const controller = await startController(home, await freePort());
  try {
    const api = `${controller.baseUrl}/edge/client/v1`;
    const admin = await loginAdmin(controller.baseUrl, ADMIN_USERNAME, ADMIN_PASSWORD);
    say(`creating ${count + 1} users`);
    const [victim, ...users] = await createUsers(`${controller.baseUrl}/edge/management/v1`, admin, count + 1);
    if (!victim) throw new Error('no users');
    say(`${count} concurrent logins, ${guesses} concurrent guesses at ${victim.username}`);
    const started = performance.now();
    const [logins, attacks] = await Promise.all([
      Promise.all(users.map((user) => timedLogin(api, user.username, user.password))),
      Promise.all(Array.from({ length: guesses }, (_, i) => timedLogin(api, victim.username, `wrong-guess-${i}`))),
    ]);
    const wallMs = performance.now() - started;
    const failed = logins.filter((login) => login.status !== 200);
    const latencies = logins.map((login) => login.ms).sort((a, b) => a - b);
    const attackStatuses = Object.fromEntries(
      [401, 429].map((status) => [status, attacks.filter((attack) => attack.status === status).length]),
    );
    const result = {
      startedAt: new Date().toISOString(),
      logins: logins.length,
      succeeded: logins.length - failed.length,
      wallMs: Math.round(wallMs),
      loginsPerSecond: Math.round((logins.length / wallMs) * 1000),
      latencyMs: {
        p50: Math.round(percentile(latencies, 50)),
        p99: Math.round(percentile(latencies, 99)),
        max: Math.round(latencies.at(-1) ?? 0),
      },
      guesses: attackStatuses,
      controllerRssMb: controller.rssMb(),
    };
    const folder = join(ROOT, 'bench/results');
    mkdirSync(folder, { recursive: true });
    writeFileSync(
      join(folder, `logins-${result.startedAt.replaceAll(':', '-')}.json`),
      `${JSON.stringify(result, null, 2)}\n`,
    );
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    if (failed.length > 0)
      throw new Error(
        `${failed.length} logins failed: ${[...new Set(failed.map((login) => login.status))].join(', ')}`,
      );
    if (attackStatuses[401]! + attackStatuses[429]! !== guesses)
      throw new Error('a guess was answered with neither 401 nor 429');
  } finally {
    await controller.stop();
    await runCleanup();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exitCode = 1;
});
