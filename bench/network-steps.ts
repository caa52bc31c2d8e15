// The operations the network bench (bench/network.ts) times at each size, all through the management and client
// APIs, so ours and upstream v1.1.8 are driven alike.
import https from 'node:https';
import { loadavg } from 'node:os';
import { errorCode, httpsRequest, type HttpsReply } from './https-client.js';

/** A controller's APIs with an admin session and a keep-alive pool. */
export interface Api {
  baseUrl: string;
  token: string;
  /** Replaced when ours is restarted (bench/network-seed.ts). */
  agent: https.Agent;
}

export interface Timing {
  count: number;
  /** Mean and median milliseconds per operation (sequential), or operations per second (concurrent). */
  meanMs: number;
  p50Ms: number;
  p99Ms: number;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The machine's one-minute load average: stated beside every figure, the machine being shared. */
export const load1 = () => Number(loadavg()[0]!.toFixed(2));

export async function call(
  api: Api,
  method: string,
  path: string,
  body?: unknown,
  token = api.token,
): Promise<HttpsReply> {
  return httpsRequest(`${api.baseUrl}${path}`, {
    method,
    headers: { 'zt-session': token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    agent: api.agent,
    timeoutMs: 120_000,
  });
}

/** The created entity's id; anything but 201 stops the bench with what was answered. */
export async function create(api: Api, collection: string, body: unknown): Promise<string> {
  const reply = await call(api, 'POST', `/edge/management/v1/${collection}`, body);
  const id = (reply.body as { data?: { id?: unknown } } | undefined)?.data?.id;
  if (reply.status !== 201 || typeof id !== 'string')
    throw new Error(`POST /${collection}: ${reply.status} ${errorCode(reply.body) ?? JSON.stringify(reply.body)}`);
  return id;
}

export async function expectStatus(reply: Promise<HttpsReply>, status: number, what: string): Promise<HttpsReply> {
  const answered = await reply;
  if (answered.status !== status)
    throw new Error(`${what}: ${answered.status} ${errorCode(answered.body) ?? JSON.stringify(answered.body)}`);
  return answered;
}

/** Runs `count` operations `concurrency` at a time; stops early (returning what was done) past `deadline`. */
export async function pool(
  count: number,
  concurrency: number,
  operation: (index: number) => Promise<unknown>,
  deadline = Number.POSITIVE_INFINITY,
): Promise<{ done: number; seconds: number }> {
  let next = 0;
  let done = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < count && performance.now() < deadline) {
      await operation(next++);
      done++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return { done, seconds: (performance.now() - started) / 1000 };
}

/** Times `count` operations one after another. */
export async function timed(count: number, operation: (index: number) => Promise<unknown>): Promise<Timing> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await operation(i);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => Number(times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(2));
  return {
    count,
    meanMs: Number((times.reduce((sum, t) => sum + t, 0) / times.length).toFixed(2)),
    p50Ms: at(0.5),
    p99Ms: at(0.99),
  };
}

export const serviceName = (index: number) => `net-service-${index}`;
/** 200 service attributes: a policy on one grants 1 in 200 services (50 of 10,000). */
export const serviceAttribute = (index: number) => `s${index % 200}`;
export const identityName = (index: number) => `net-identity-${index}`;
export const identityAttribute = (index: number) => `i${index % 1000}`;

/**
 * What zrok does per account (zrok#550): an identity with an enrollment, and a Dial policy of its own for it,
 * one after another.
 */
export async function identitySetUp(api: Api, tag: string, index: number): Promise<void> {
  const id = await create(api, 'identities', {
    name: `setup-${tag}-${index}`,
    type: 'User',
    isAdmin: false,
    roleAttributes: [identityAttribute(index)],
    enrollment: { ott: true },
  });
  await create(api, 'service-policies', {
    name: `setup-${tag}-${index}`,
    type: 'Dial',
    semantic: 'AnyOf',
    identityRoles: [`@${id}`],
    serviceRoles: [`#${serviceAttribute(index)}`],
  });
}

/** A terminator on the bench's router for one of the services. */
export const terminatorBody = (serviceIds: readonly string[], routerId: string, index: number) => ({
  service: serviceIds[index % serviceIds.length],
  router: routerId,
  binding: 'transport',
  address: `tcp:10.${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}:443`,
});

/**
 * What a typical identity needs for its session creates to succeed on ours and upstream alike: an edge router it
 * may use (upstream answers NO_EDGE_ROUTERS_AVAILABLE otherwise) and one the service may be reached through.
 */
export async function dialPolicies(api: Api): Promise<void> {
  await create(api, 'edge-router-policies', {
    name: 'net-typical',
    semantic: 'AnyOf',
    identityRoles: ['#typical'],
    edgeRouterRoles: ['#net'],
  });
  await create(api, 'service-edge-router-policies', {
    name: 'net-typical',
    semantic: 'AnyOf',
    serviceRoles: ['#s0'],
    edgeRouterRoles: ['#net'],
  });
}

/** A session create as an SDK makes it before its first dial of a service, on its existing API session. */
export const sessionCreate = (api: Api, serviceId: string, token: string) =>
  expectStatus(
    call(api, 'POST', '/edge/client/v1/sessions', { serviceId, type: 'Dial' }, token),
    201,
    'session create',
  );
