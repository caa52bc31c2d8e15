// The harness's settings, read once from the environment, and its progress log on stderr (stdout is the report).

export const PHASES = ['platform', 'flood', 'scale', 'observability', 'sessions', 'mixed'] as const;
export type PhaseName = (typeof PHASES)[number];

export const settings = {
  /** BENCH_PHASES=platform,flood,scale,observability,sessions,mixed (the default runs all, in that order). */
  phases: phasesFromEnv('BENCH_PHASES'),
  durationSeconds: numberFromEnv('BENCH_DURATION', 10),
  warmupSeconds: numberFromEnv('BENCH_WARMUP', 2),
  // Two cores shared by server and load generator: 10 connections reach the same req/s as 50 on every scenario
  // here, and p50/p99 then show service time rather than 50-deep queues.
  connections: numberFromEnv('BENCH_CONNECTIONS', 10),
  smallSeed: numberFromEnv('BENCH_SMALL_SEED', 1_000),
  largeSeed: numberFromEnv('BENCH_LARGE_SEED', 100_000),
  hashSeconds: numberFromEnv('BENCH_HASH_SECONDS', 3),
  /** Fraction of the full scale model (1 = 100k identities, 10k services, 2k service policies). */
  scaleFactor: numberFromEnv('BENCH_SCALE', 1),
  /** Timed role-attribute changes on one identity (after a tenth as many untimed ones). */
  attributeChanges: numberFromEnv('BENCH_ATTRIBUTE_CHANGES', 200),
  /** Timed changes of the 5% policy's service roles, alternately adding and removing an attribute. */
  policyChanges: numberFromEnv('BENCH_POLICY_CHANGES', 6),
  /** Rounds of current-identity with the access log and metrics off, then on; each variant's best round counts. */
  observabilityRounds: numberFromEnv('BENCH_OBSERVABILITY_ROUNDS', 2),
  /** Session creates per second the sessions phase provisions new (API session, service) combinations for. */
  sessionMaxRate: numberFromEnv('BENCH_SESSION_MAX_RATE', 3_000),
  /** Services in each of the heavy identity's two sets (with and without a posture check). */
  sessionHeavyServices: numberFromEnv('BENCH_SESSION_HEAVY_SERVICES', 500),
  /** The mixed phase's clients (SDKs and admins together; bench/mixed-phase.ts), of which admins, and its length. */
  mixedClients: numberFromEnv('BENCH_MIXED_CLIENTS', 200),
  mixedAdmins: numberFromEnv('BENCH_MIXED_ADMINS', 10),
  mixedSeconds: numberFromEnv('BENCH_MIXED_SECONDS', 30),
  /** BENCH_STORE=postgres: every bench home's data in a fresh schema of BENCH_DATABASE_URL's database (else SQLite). */
  store: storeFromEnv('BENCH_STORE'),
  /** BENCH_WORKERS=2: the controller runs with `--workers 2` (processes sharing the port and database). */
  workers: Math.max(1, Math.floor(numberFromEnv('BENCH_WORKERS', 1))),
  /** BENCH_UPSTREAM=0: do not run upstream v1.1.8 beside ours (it also stays off when no binary can be found). */
  upstream: process.env.BENCH_UPSTREAM !== '0',
  /** Requests in flight while seeding upstream through its API (its store serialises writes anyway). */
  upstreamSeedConcurrency: Math.max(1, numberFromEnv('BENCH_UPSTREAM_SEED_CONCURRENCY', 8)),
};

export type Settings = typeof settings;

function storeFromEnv(name: string): 'sqlite' | 'postgres' {
  const raw = process.env[name] || 'sqlite';
  if (raw !== 'sqlite' && raw !== 'postgres') throw new Error(`${name} is sqlite or postgres; got "${raw}"`);
  return raw;
}

function numberFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a non-negative number, got "${raw}"`);
  return value;
}

function phasesFromEnv(name: string): PhaseName[] {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return [...PHASES];
  const asked = raw
    .split(',')
    .map((phase) => phase.trim())
    .filter((phase) => phase.length > 0);
  const unknown = asked.filter((phase) => !(PHASES as readonly string[]).includes(phase));
  if (unknown.length > 0 || asked.length === 0)
    throw new Error(`${name} takes a comma-separated list of ${PHASES.join(', ')}; got "${raw}"`);
  // Always in the same order: the scale phase reuses the identities the platform phase seeded.
  return PHASES.filter((phase) => asked.includes(phase));
}

export function say(line: string): void {
  process.stderr.write(`${line}\n`);
}
