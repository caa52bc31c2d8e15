// `npm run bench:migrate -- [--identities 10000]` (issue 32): how long `migrate:upstream` takes on a large upstream
// v1.1.8 network. Builds one on a real upstream controller through its REST API (N identities with three role
// attributes each, every tenth with a pending enrollment, 20 services, Dial and Bind policies by attribute, two
// edge routers, #all router policies), stops it, then times reading its ctrl.db and importing it into SQLite and,
// with BENCH_DATABASE_URL or ZITI_TEST_DATABASE_URL, PostgreSQL (policy links derived included). Figures go to
// stdout and bench/results/migrate.json. `--save-db <file>` keeps upstream's database, `--db <file>` times one again.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startUpstream } from '../scripts/upstream.js';
import { importTables } from '../src/migrate/import-database.js';
import { readUpstreamDatabase } from '../src/migrate/read-upstream-database.js';
import { openStore } from '../src/store/open-store.js';
import { createScratchSchema } from '../src/store/postgres/scratch-schema.js';
import { upstreamClient, type UpstreamClient } from '../test/migrate/upstream-client.js';
import { attributesFor, identityName } from './seed-identities.js';
import { ROOT } from './scenario-run.js';

const { values } = parseArgs({
  options: { identities: { type: 'string' }, 'save-db': { type: 'string' }, db: { type: 'string' } },
});
const identities = Number(values.identities ?? 10_000);
const CONCURRENCY = 8;
const MANAGEMENT = '/edge/management/v1';

async function build(client: UpstreamClient, admin: string): Promise<void> {
  const create = (path: string, body: unknown) => client.create(`${MANAGEMENT}${path}`, body, admin);
  for (let index = 0; index < 20; index++)
    await create('/services', { name: `svc-${index}`, roleAttributes: [`attr-${index}`], encryptionRequired: true });
  for (let index = 0; index < 20; index++) {
    for (const type of ['Dial', 'Bind'])
      await create('/service-policies', {
        name: `${type}-${index}`,
        type,
        semantic: 'AnyOf',
        identityRoles: [`#attr-${index}`, `#attr-${index + 500}`],
        serviceRoles: [`#attr-${index}`],
      });
  }
  for (const name of ['er-a', 'er-b']) await create('/edge-routers', { name, roleAttributes: ['edge'] });
  await create('/edge-router-policies', {
    name: 'all',
    semantic: 'AnyOf',
    identityRoles: ['#all'],
    edgeRouterRoles: ['#all'],
  });
  await create('/service-edge-router-policies', {
    name: 'all',
    semantic: 'AnyOf',
    serviceRoles: ['#all'],
    edgeRouterRoles: ['#all'],
  });
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < identities; index = next++) {
      await create('/identities', {
        name: identityName(index),
        type: 'Device',
        isAdmin: false,
        roleAttributes: attributesFor(index),
        ...(index % 10 === 0 ? { enrollment: { ott: true } } : {}),
      });
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

/** Builds the network on a real upstream controller and returns its stopped ctrl.db, copied into `work`. */
async function upstreamDatabase(work: string, figures: Record<string, unknown>): Promise<string> {
  const upstream = await startUpstream({ keepHome: true, password: 'Bench-Admin-1' });
  try {
    const client = upstreamClient(upstream.baseUrl);
    const started = performance.now();
    await build(client, await client.login(upstream.username, upstream.password));
    figures.upstreamBuildMs = Math.round(performance.now() - started);
    await upstream.stop();
    const database = join(work, 'upstream-ctrl.db');
    copyFileSync(join(upstream.home, 'ctrl.db'), database);
    if (values['save-db']) copyFileSync(database, values['save-db']);
    return database;
  } finally {
    await upstream.stop();
    rmSync(upstream.home, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const figures: Record<string, unknown> = { identities };
  const work = mkdtempSync(join(tmpdir(), 'ziti-bench-migrate-'));
  try {
    // --db: a database an earlier run saved (--save-db), so the import can be timed again without rebuilding.
    const database = values.db ?? (await upstreamDatabase(work, figures));
    figures.upstreamDatabaseBytes = statSync(database).size;
    const readStarted = performance.now();
    const data = readUpstreamDatabase(database, new Date().toISOString());
    figures.readMs = Math.round(performance.now() - readStarted);
    figures.rows = Object.fromEntries(data.tables.map((table) => [table.kind, table.rows.length]));
    const url = process.env.BENCH_DATABASE_URL ?? process.env.ZITI_TEST_DATABASE_URL;
    type Target = () => Promise<{ databaseUrl: string | undefined; drop(): Promise<void> }>;
    const targets: [string, Target][] = [
      ['sqlite', () => Promise.resolve({ databaseUrl: undefined, drop: () => Promise.resolve() })],
    ];
    if (url)
      targets.push([
        'postgres',
        async () => {
          const scratch = await createScratchSchema(url, 'ziti_bench_migrate');
          return { databaseUrl: scratch.url, drop: () => scratch.drop() };
        },
      ]);
    for (const [name, prepare] of targets) {
      const target = await prepare();
      const store = await openStore({ databaseUrl: target.databaseUrl, databaseFile: join(work, `${name}.db`) });
      try {
        const result = await importTables(store, data.tables);
        figures[`${name}ImportMs`] = Math.round(result.ms);
        figures[`${name}Phases`] = result.phases;
        figures[`${name}DerivedRows`] = [...result.derived.values()].reduce((sum, count) => sum + count, 0);
      } finally {
        await store.close();
        await target.drop();
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
  writeFileSync(join(ROOT, 'bench', 'results', 'migrate.json'), `${JSON.stringify(figures, null, 2)}\n`);
  process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
}

await main();
