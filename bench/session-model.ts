// The sessions bench's model, made through the management API of a running controller: a typical identity (tens
// of services) and a heavy one (hundreds), each with one set of services behind no posture check and one behind
// an OS check; edge routers every identity may use; and policies that select the seeded identities by attribute,
// so the link tables grow with the number of identities as they do in a real deployment.
import https from 'node:https';
import { httpsRequest } from './https-client.js';

export interface SessionModel {
  edgeRouters: number;
  /** Services in each of the typical identity's two sets. */
  typicalServices: number;
  /** Services in each of the heavy identity's two sets. */
  heavyServices: number;
  /** Dial policies `#attr-N` → the typical services: ~0.3% of the seeded identities each. */
  backgroundPolicies: number;
}

export const sessionModel = (heavyServices: number): SessionModel => ({
  edgeRouters: 10,
  typicalServices: 50,
  heavyServices,
  backgroundPolicies: 50,
});

export interface BenchUser {
  username: string;
  password: string;
  /** Services its Dial policy grants without posture checks, and behind the OS check. */
  plain: string[];
  postured: string[];
}

export interface SessionFixture {
  typical: BenchUser;
  heavy: BenchUser;
  osCheckId: string;
}

const agent = new https.Agent({ keepAlive: true, maxSockets: 4 });

async function call(url: string, token: string, method: string, body?: unknown): Promise<Record<string, unknown>> {
  const reply = await httpsRequest(url, {
    method,
    agent,
    timeoutMs: 120_000,
    headers: { 'zt-session': token, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (reply.status >= 300)
    throw new Error(`${method} ${url} answered ${reply.status}: ${JSON.stringify(reply.body).slice(0, 300)}`);
  return (reply.body as { data: Record<string, unknown> }).data;
}

/** Runs `work` over `items`, four at a time (the controller's writes are serial anyway; this hides the latency). */
async function inParallel<T, R>(items: readonly T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < items.length; index = next++) results[index] = await work(items[index]!);
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  return results;
}

export async function setUpSessionModel(
  baseUrl: string,
  adminToken: string,
  model: SessionModel,
  progress: (line: string) => void,
): Promise<SessionFixture> {
  const management = `${baseUrl}/edge/management/v1`;
  const create = async (collection: string, body: Record<string, unknown>) =>
    (await call(`${management}/${collection}`, adminToken, 'POST', body)).id as string;
  const indexes = (count: number) => Array.from({ length: count }, (_, index) => index);

  await inParallel(indexes(model.edgeRouters), (n) =>
    create('edge-routers', { name: `bench-session-router-${n}`, roleAttributes: ['bench-session-routers'] }),
  );
  await create('edge-router-policies', {
    name: 'bench-session-routers',
    semantic: 'AnyOf',
    identityRoles: ['#all'],
    edgeRouterRoles: ['#bench-session-routers'],
  });
  await create('service-edge-router-policies', {
    name: 'bench-session-routers',
    semantic: 'AnyOf',
    serviceRoles: ['#all'],
    edgeRouterRoles: ['#bench-session-routers'],
  });
  const osCheckId = await create('posture-checks', {
    name: 'bench-session-os',
    typeId: 'OS',
    roleAttributes: ['bench-session-os'],
    operatingSystems: [{ type: 'Linux', versions: ['>=5.0.0'] }],
  });

  const user = async (who: 'typical' | 'heavy', services: number): Promise<BenchUser> => {
    progress(`  ${who} identity: ${services} + ${services} services…`);
    const sets: Record<'plain' | 'postured', string[]> = { plain: [], postured: [] };
    for (const set of ['plain', 'postured'] as const) {
      const attribute = `bench-${who}-${set}`;
      sets[set] = await inParallel(indexes(services), (n) =>
        create('services', { name: `${attribute}-${n}`, encryptionRequired: true, roleAttributes: [attribute] }),
      );
      await create('service-policies', {
        name: attribute,
        type: 'Dial',
        semantic: 'AnyOf',
        identityRoles: [`#bench-${who}-user`],
        serviceRoles: [`#${attribute}`],
        postureCheckRoles: set === 'postured' ? ['#bench-session-os'] : [],
      });
    }
    const identityId = await create('identities', {
      name: `bench-session-${who}`,
      type: 'User',
      isAdmin: false,
      roleAttributes: [`bench-${who}-user`],
    });
    const username = `bench-session-${who}`;
    const password = `Bench-${who}-password-1`;
    await create('authenticators', { method: 'updb', identityId, username, password });
    return { username, password, ...sets };
  };
  const typical = await user('typical', model.typicalServices);
  const heavy = await user('heavy', model.heavyServices);
  await inParallel(indexes(model.backgroundPolicies), (n) =>
    create('service-policies', {
      name: `bench-session-background-${n}`,
      type: 'Dial',
      semantic: 'AnyOf',
      identityRoles: [`#attr-${n}`],
      serviceRoles: ['#bench-typical-plain'],
    }),
  );
  return { typical, heavy, osCheckId };
}

const LOGIN_ATTEMPTS = 20;

/** `count` API sessions of one user (each session create needs an API session, service and type not used yet). */
export async function loginMany(baseUrl: string, user: BenchUser, count: number): Promise<string[]> {
  const url = `${baseUrl}/edge/client/v1/authenticate?method=password`;
  const body = { username: user.username, password: user.password };
  return inParallel(
    Array.from({ length: count }, (_, index) => index),
    async () => {
      for (let attempt = 1; ; attempt++) {
        const reply = await httpsRequest(url, {
          method: 'POST',
          agent,
          timeoutMs: 60_000,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        const token = (reply.body as { data?: { token?: string } }).data?.token;
        if (reply.status === 200 && token) return token;
        // Upstream's login rate limiter answers 429 to logins beyond what it admits at once: wait and send again.
        if (reply.status !== 429 || attempt === LOGIN_ATTEMPTS)
          throw new Error(`login of ${user.username} answered ${reply.status}`);
        await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
      }
    },
  );
}

/** What the user's SDK reports: an OS that passes the bench's check (identity-wide, so once is enough). */
export function postureReport(osCheckId: string): string {
  return JSON.stringify([
    { id: osCheckId, typeId: 'OS', type: 'Linux', version: '6.1.0', build: '6.1.0-17-amd64' },
    { id: 'bench-mac', typeId: 'MAC', macAddresses: ['aa:bb:cc:dd:ee:ff'] },
  ]);
}

export async function reportPosture(baseUrl: string, token: string, osCheckId: string): Promise<void> {
  await call(`${baseUrl}/edge/client/v1/posture-response-bulk`, token, 'POST', JSON.parse(postureReport(osCheckId)));
}

export function closeModelConnections(): void {
  agent.destroy();
}
