// The scale phase's write measurements: one identity's role attributes flipping, and the 5% policy gaining and
// losing a service attribute — one request at a time over a kept-alive connection, timed by the client.
import https from 'node:https';
import { join } from 'node:path';
import { sql } from 'kysely';
import { openStore } from '../src/store/open-store.js';
import { databaseUrlFor } from './bench-store.js';
import { errorCode, httpsRequest } from './https-client.js';
import { FIVE_PERCENT, fivePercentPolicy, scaleIdentities } from './scale-model.js';
import { readMachineBusySeconds, type ServerProcess } from './server-process.js';

export interface Latencies {
  count: number;
  meanMs: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** What the server spent, and how busy everything else kept the machine, while something was measured. */
export interface Usage {
  serverCpuMs: number;
  /** Cores used by processes other than the server and this harness, on average. */
  otherCores: number;
}

export interface AttributeChanges extends Latencies, Usage {
  /** Server CPU per timed change: unlike the latencies, barely moved by other processes on the machine. */
  cpuMsPerChange: number;
  /** Replies other than 200, with the first one's status and code. */
  failures: number;
  firstFailure?: string;
}

export interface PolicyChangeStep {
  change: 'add' | 'remove';
  status: number;
  ms: number;
  /** identity_services rows inserted (add) or deleted (remove). */
  rowsAddedOrDeleted: number;
  /** Dial + bind counts changed: every pair the change joins or leaves is one row inserted, updated or deleted. */
  linksChanged: number;
  usage: Usage;
}

export interface PolicyChanges {
  steps: PolicyChangeStep[];
  /** All steps' link changes over all steps' request time. */
  linksPerSecond: number;
  /** The same over the server's CPU time instead: what a machine without other load would show. */
  linksPerCpuSecond: number;
  /** Median time of a PATCH that changes only tags: what every write costs before the engine does anything. */
  noLinkChangeMs: number;
}

function summarise(samples: number[]): Latencies {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (share: number) => sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)] ?? 0;
  const meanMs = sorted.reduce((sum, ms) => sum + ms, 0) / Math.max(1, sorted.length);
  return { count: sorted.length, meanMs, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: sorted.at(-1) ?? 0 };
}

/** A PATCH as admin over the agent's one connection: its status, error code and the time to the last byte. */
async function timedPatch(agent: https.Agent, url: string, token: string, body: unknown) {
  const started = performance.now();
  const headers = { 'content-type': 'application/json', accept: 'application/json', 'zt-session': token };
  const reply = await httpsRequest(url, {
    method: 'PATCH',
    headers,
    body: JSON.stringify(body),
    agent,
    timeoutMs: 60_000,
  });
  return { ms: performance.now() - started, status: reply.status, code: errorCode(reply.body) };
}

/** Starts measuring; the returned function stops and reports. */
function meter(server: ServerProcess): () => Usage {
  const server0 = server.cpuSeconds();
  const machine0 = readMachineBusySeconds();
  const own0 = process.cpuUsage();
  const wall0 = performance.now();
  return () => {
    const serverCpu = server.cpuSeconds() - server0;
    const own = process.cpuUsage(own0);
    const other = readMachineBusySeconds() - machine0 - serverCpu - (own.user + own.system) / 1e6;
    return { serverCpuMs: serverCpu * 1000, otherCores: Math.max(0, other / ((performance.now() - wall0) / 1000)) };
  };
}

function keptAlive(): https.Agent {
  return new https.Agent({ keepAlive: true, maxSockets: 1 });
}

/** PATCHes `roleAttributes` alternately to the two sets; the first tenth of the requests warm up and are not counted. */
export async function measureAttributeChanges(
  server: ServerProcess,
  token: string,
  identityId: string,
  count: number,
): Promise<AttributeChanges> {
  const agent = keptAlive();
  const url = `${server.baseUrl}/edge/management/v1/identities/${identityId}`;
  const sets = scaleIdentities.changed.attributeSets;
  const samples: number[] = [];
  let failures = 0;
  let firstFailure: string | undefined;
  let usage: Usage = { serverCpuMs: 0, otherCores: 0 };
  try {
    const warmup = Math.max(5, Math.round(count / 10));
    let stop: (() => Usage) | undefined;
    for (let i = 0; i < warmup + count; i++) {
      if (i === warmup) stop = meter(server);
      // The identity starts with set 0, so the first request changes it.
      const reply = await timedPatch(agent, url, token, { roleAttributes: sets[(i + 1) % 2] });
      if (reply.status !== 200) {
        failures++;
        firstFailure ??= `${reply.status}${reply.code ? ` ${reply.code}` : ''}`;
      }
      if (i >= warmup) samples.push(reply.ms);
    }
    usage = stop?.() ?? usage;
  } finally {
    agent.destroy();
  }
  const cpuMsPerChange = usage.serverCpuMs / Math.max(1, samples.length);
  return { ...summarise(samples), ...usage, cpuMsPerChange, failures, ...(firstFailure ? { firstFailure } : {}) };
}

/** How many identity–service rows and links involve the extra attribute's services, read beside the controller. */
export interface LinkCounter {
  count(): Promise<{ rows: number; links: number }>;
  close(): Promise<void>;
}

/** Our controller's link table, read through a store of its own on the controller's database (SQLite or PostgreSQL). */
export async function storeLinkCounter(home: string): Promise<LinkCounter> {
  const store = await openStore({ databaseUrl: await databaseUrlFor(home), databaseFile: join(home, 'ctrl.db') });
  const count = () =>
    store.read(async (db) => {
      const { rows } = await sql<{
        rows: number;
        links: number;
      }>`SELECT count(*) AS rows, coalesce(sum(dial + bind), 0) AS links FROM identity_services
        WHERE service_seq IN (SELECT s.seq FROM service_role_attributes a JOIN services s ON s.id = a.entity_id WHERE a.value = ${FIVE_PERCENT.extraAttribute})`.execute(
        db,
      );
      return { rows: Number(rows[0]?.rows ?? 0), links: Number(rows[0]?.links ?? 0) };
    });
  return { count, close: () => store.close() };
}

/** For a controller whose store cannot be read (upstream): the changes are timed, their links not counted. */
const uncounted: LinkCounter = { count: () => Promise.resolve({ rows: 0, links: 0 }), close: () => Promise.resolve() };

/**
 * PATCHes the 5% policy's `serviceRoles`, alternately adding and removing the extra attribute, and counts with
 * `links` how many identity–service links each change moved.
 */
export async function measurePolicyChanges(
  server: ServerProcess,
  token: string,
  policyId: string,
  steps: number,
  links: LinkCounter = uncounted,
): Promise<PolicyChanges> {
  const agent = keptAlive();
  const url = `${server.baseUrl}/edge/management/v1/service-policies/${policyId}`;
  const count = () => links.count();
  try {
    const baseline: number[] = [];
    for (let i = 0; i < 3; i++) baseline.push((await timedPatch(agent, url, token, { tags: { benchRun: i } })).ms);
    const results: PolicyChangeStep[] = [];
    for (let i = 0; i < steps; i++) {
      const change = i % 2 === 0 ? 'add' : 'remove';
      const before = await count();
      const stop = meter(server);
      const reply = await timedPatch(agent, url, token, {
        serviceRoles: fivePercentPolicy(change === 'add').roles.service_roles,
      });
      const usage = stop();
      const after = await count();
      results.push({
        change,
        status: reply.status,
        ms: reply.ms,
        rowsAddedOrDeleted: Math.abs(after.rows - before.rows),
        linksChanged: Math.abs(after.links - before.links),
        usage,
      });
    }
    const ok = results.filter((step) => step.status === 200);
    const links = ok.reduce((sum, step) => sum + step.linksChanged, 0);
    const seconds = ok.reduce((sum, step) => sum + step.ms, 0) / 1000;
    const cpuSeconds = ok.reduce((sum, step) => sum + step.usage.serverCpuMs, 0) / 1000;
    return {
      steps: results,
      linksPerSecond: seconds > 0 ? links / seconds : 0,
      linksPerCpuSecond: cpuSeconds > 0 ? links / cpuSeconds : 0,
      noLinkChangeMs: summarise(baseline).p50Ms,
    };
  } finally {
    await links.close();
    agent.destroy();
  }
}
