// The mixed phase's clients, in a process of their own (bench/mixed-phase.ts starts it): what a network of SDKs and
// a few admins do at once (issue 21: ~200 such clients once kept a new client's TLS handshake waiting 30–60 s).
// SDKs log in with a password on a fresh connection, then poll current-identity, their service list and
// service-updates on that connection, and log in again after a while; admins list identities and create and delete
// them. Prints one JSON line (MixedLoadFigures) when the time is up.
import https from 'node:https';
import { httpsRequest } from './https-client.js';
import { MIXED_SPEC_VARIABLE, type MixedLoadFigures, type MixedLoadSpec } from './mixed-phase.js';

const CLIENT = '/edge/client/v1';
const MANAGEMENT = '/edge/management/v1';
const POLLS = [
  `${CLIENT}/current-identity`,
  `${CLIENT}/services?limit=500`,
  `${CLIENT}/current-api-session/service-updates`,
];

const spec = JSON.parse(process.env[MIXED_SPEC_VARIABLE] ?? '') as MixedLoadSpec;
const figures: MixedLoadFigures = { requests: {}, seconds: spec.durationSeconds };
const deadline = performance.now() + spec.durationSeconds * 1000;

async function timed(
  kind: string,
  run: () => Promise<{ status: number; body: unknown }>,
  ok: (status: number) => boolean = (status) => status < 300,
) {
  const tally = (figures.requests[kind] ??= { ok: 0, failed: 0 });
  try {
    const reply = await run();
    if (ok(reply.status)) tally.ok++;
    else tally.failed++;
    return reply;
  } catch {
    tally.failed++;
    return undefined;
  }
}

const json = (token: string | undefined, body?: unknown) => ({
  headers: {
    accept: 'application/json',
    ...(token ? { 'zt-session': token } : {}),
    ...(body === undefined ? {} : { 'content-type': 'application/json' }),
  },
  ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  timeoutMs: 120_000,
});

async function sdk(index: number): Promise<void> {
  const username = spec.usernames[index % spec.usernames.length]!;
  while (performance.now() < deadline) {
    const agent = new https.Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false });
    try {
      const login = await timed('sdk login (new connection)', () =>
        httpsRequest(`${spec.baseUrl}${CLIENT}/authenticate?method=password`, {
          method: 'POST',
          agent,
          ...json(undefined, { username, password: spec.password }),
        }),
      );
      const token = (login?.body as { data?: { token?: string } } | undefined)?.data?.token;
      if (!token) continue;
      for (let poll = 0; poll < spec.pollsPerLogin && performance.now() < deadline; poll++) {
        const path = POLLS[poll % POLLS.length]!;
        await timed(`sdk GET ${path.split('?')[0]!.replace(CLIENT, '')}`, () =>
          httpsRequest(`${spec.baseUrl}${path}`, { agent, ...json(token) }),
        );
      }
    } finally {
      agent.destroy();
    }
  }
}

async function admin(index: number): Promise<void> {
  const agent = new https.Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false });
  let round = 0;
  try {
    while (performance.now() < deadline) {
      round++;
      await timed('admin list identities', () =>
        httpsRequest(`${spec.baseUrl}${MANAGEMENT}/identities?limit=100`, { agent, ...json(spec.adminToken) }),
      );
      if (round % 2 !== 0) continue;
      const name = `mixed-admin-${index}-${round}`;
      const created = await timed('admin create identity', () =>
        httpsRequest(`${spec.baseUrl}${MANAGEMENT}/identities`, {
          method: 'POST',
          agent,
          ...json(spec.adminToken, { name, type: 'User', isAdmin: false, roleAttributes: ['mixed'] }),
        }),
      );
      const id = (created?.body as { data?: { id?: string } } | undefined)?.data?.id;
      if (id)
        await timed('admin delete identity', () =>
          httpsRequest(`${spec.baseUrl}${MANAGEMENT}/identities/${id}`, {
            method: 'DELETE',
            agent,
            ...json(spec.adminToken),
          }),
        );
    }
  } finally {
    agent.destroy();
  }
}

const started = performance.now();
await Promise.all([
  ...Array.from({ length: spec.sdkClients }, (_, i) => sdk(i)),
  ...Array.from({ length: spec.adminClients }, (_, i) => admin(i)),
]);
figures.seconds = (performance.now() - started) / 1000;
process.stdout.write(`${JSON.stringify(figures)}\n`);
