// `node --import tsx bench/write-turns.ts [seconds] [writers per instance]` (PostgreSQL: BENCH_DATABASE_URL or
// ZITI_TEST_DATABASE_URL): the write turn alone, without HTTP or the request work around it (issue 26). Two stores
// on one fresh schema stand for two instances; each runs writers that read a row and insert one, as a session create
// does, in alternating rounds: strict (naming no write area, which is how every write ran before issue 26) and in
// write areas (each writer its own API session's area, reading its identity's). Prints commits per second and p99
// for each; the ratio is what the narrower turn buys on this machine's disk and cores.
import { performance } from 'node:perf_hooks';
import { migrations } from '../src/store/migrations/index.js';
import { openPostgresStore } from '../src/store/postgres/postgres-store.js';
import { createScratchSchema } from '../src/store/postgres/scratch-schema.js';
import { insertRow, selectRows } from '../src/store/queries/table-rows.js';
import { writeAreas, type Store, type WriteOptions } from '../src/store/store.js';

const seconds = Number(process.argv[2] ?? 5);
const writers = Number(process.argv[3] ?? 8);
const url = process.env.BENCH_DATABASE_URL || process.env.ZITI_TEST_DATABASE_URL;
if (!url) throw new Error('bench/write-turns.ts needs BENCH_DATABASE_URL or ZITI_TEST_DATABASE_URL (PostgreSQL)');

let counter = 0;
async function round(stores: readonly Store[], mode: 'strict' | 'areas'): Promise<{ rate: number; p99: number }> {
  const latencies: number[] = [];
  const endAt = performance.now() + seconds * 1000;
  const writer = async (store: Store, index: number) => {
    const options: WriteOptions | undefined =
      mode === 'strict'
        ? undefined
        : { touches: [writeAreas.apiSession(`a${index}`)], reads: [writeAreas.identity(`i${index % 3}`)] };
    while (performance.now() < endAt) {
      const started = performance.now();
      await store.transaction(async (tx) => {
        await selectRows(tx, 'cluster_secrets', { name: 'anchor' });
        await insertRow(tx, 'cluster_secrets', {
          name: `w${++counter}`,
          value: 'x',
          updated_at: '2024-01-01T00:00:00.000Z',
        });
      }, options);
      latencies.push(performance.now() - started);
    }
  };
  const began = performance.now();
  await Promise.all(
    stores.flatMap((store, s) => Array.from({ length: writers }, (_, w) => writer(store, s * writers + w))),
  );
  latencies.sort((x, y) => x - y);
  return {
    rate: latencies.length / ((performance.now() - began) / 1000),
    p99: latencies[Math.floor(latencies.length * 0.99)] ?? NaN,
  };
}

const scratch = await createScratchSchema(url, 'ziti_bench_turns');
try {
  const stores = [
    await openPostgresStore({ url: scratch.url, migrations }),
    await openPostgresStore({ url: scratch.url, migrations }),
  ];
  const results: Record<string, Array<{ rate: number; p99: number }>> = { strict: [], areas: [] };
  for (let i = 0; i < 3; i++)
    for (const mode of ['strict', 'areas'] as const) results[mode]!.push(await round(stores, mode));
  for (const [mode, runs] of Object.entries(results)) {
    const best = runs.reduce((x, y) => (y.rate > x.rate ? y : x));
    process.stdout.write(
      `${mode.padEnd(6)} best of ${runs.length}: ${best.rate.toFixed(0)} commits/s, p99 ${best.p99.toFixed(1)} ms (all: ${runs.map((r) => r.rate.toFixed(0)).join(', ')})\n`,
    );
  }
  for (const store of stores) await store.close();
} finally {
  await scratch.drop();
}
