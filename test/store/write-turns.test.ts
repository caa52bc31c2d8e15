// Which writes take turns (issue 26), on the store tier of SQLite (npm test) and PostgreSQL (npm run test:postgres),
// with two stores on one database as two instances have: writes that name different write areas run at once on
// PostgreSQL; writes of one area, and a strict write (one that names none) with anything, never overlap.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { insertRow, selectRows } from '../../src/store/queries/table-rows.js';
import { writeAreas, type Db, type Store, type WriteOptions } from '../../src/store/store.js';
import { emptyDatabase, storeUnderTest } from './test-store.js';

const at = '2024-01-01T00:00:00.000Z';
const identity = (id: string) => ({
  id,
  created_at: at,
  updated_at: at,
  tags: '{}',
  is_system: 0,
  name: id,
  type_id: 'Default',
});

/** Long enough for a write that wrongly skipped its turn to have started (a correct one never starts). */
const SETTLE_MS = 300;

async function withTwoStores(test: (a: Store, b: Store) => Promise<void>): Promise<void> {
  const database = await emptyDatabase();
  try {
    // SQLite's driver waits for a busy file synchronously, so two connections in one process cannot wait for each
    // other; its one connection stands for both (another process's waits are SQLite's own, BEGIN IMMEDIATE).
    const a = await database.open();
    const b = storeUnderTest === 'postgres' ? await database.open() : a;
    try {
      await test(a, b);
    } finally {
      await a.close();
      if (b !== a) await b.close();
    }
  } finally {
    await database.remove();
  }
}

describe(`write turns on ${storeUnderTest}`, () => {
  it(
    "a write of another area runs beside an open one (PostgreSQL); the same area's and a strict write wait for it",
    { timeout: 30_000 },
    async () => {
      await withTwoStores(async (a, b) => {
        const events: string[] = [];
        let open!: () => void;
        const gate = new Promise<void>((resolve) => (open = resolve));
        const write = (store: Store, name: string, options: WriteOptions | undefined, wait?: Promise<void>) =>
          store.transaction(async (tx: Db) => {
            events.push(`${name} start`);
            if (wait) await wait;
            await insertRow(tx, 'identities', identity(name));
            events.push(`${name} end`);
          }, options);
        const x = { touches: [writeAreas.identity('x')] };
        const held = write(a, 'held', x, gate);
        while (!events.includes('held start')) await sleep(5);
        if (storeUnderTest === 'postgres') {
          // Neither the other area's write nor its generation move waits for the held write.
          await write(b, 'other-area', { touches: [writeAreas.identity('y')] });
          assert.ok(events.includes('other-area end'));
        }
        const sameArea = write(b, 'same-area', x);
        const strict = write(b, 'strict', undefined);
        await sleep(SETTLE_MS);
        assert.ok(!events.includes('same-area start') && !events.includes('strict start'), events.join(', '));
        open();
        await Promise.all([held, sameArea, strict]);
        assert.ok(events.indexOf('held end') < events.indexOf('same-area start'), events.join(', '));
        assert.ok(events.indexOf('held end') < events.indexOf('strict start'), events.join(', '));
        assert.equal(
          (await a.read((db) => selectRows(db, 'identities', {}))).length,
          storeUnderTest === 'postgres' ? 4 : 3,
        );
      });
    },
  );

  it(
    'a strict write waiting for its turn holds back area writes that come after it (no starvation)',
    { timeout: 30_000 },
    async () => {
      await withTwoStores(async (a, b) => {
        const events: string[] = [];
        let open!: () => void;
        const gate = new Promise<void>((resolve) => (open = resolve));
        const area = (name: string) => ({ touches: [writeAreas.identity(name)] });
        const held = a.transaction(async () => {
          events.push('held start');
          await gate;
        }, area('x'));
        while (!events.includes('held start')) await sleep(5);
        const strict = b.transaction(() => Promise.resolve(void events.push('strict')));
        await sleep(SETTLE_MS / 3);
        const later = a.transaction(() => Promise.resolve(void events.push('later')), area('z'));
        await sleep(SETTLE_MS);
        open();
        await Promise.all([held, strict, later]);
        assert.deepEqual(events, ['held start', 'strict', 'later']);
      });
    },
  );

  it(
    'an area write moves the generation here and at the other store unless it is bookkeeping',
    { timeout: 30_000 },
    async () => {
      await withTwoStores(async (a, b) => {
        await b.refresh();
        const [ownBefore, otherBefore] = [a.changes.latest, b.changes.latest];
        const touches = [writeAreas.identity('x')];
        await a.transaction((tx) => insertRow(tx, 'cluster_secrets', { name: 'beat', value: '1', updated_at: at }), {
          bookkeeping: true,
          touches,
        });
        await b.refresh();
        assert.deepEqual([a.changes.latest, b.changes.latest], [ownBefore, otherBefore]);
        await a.transaction((tx) => insertRow(tx, 'identities', identity('model')), { touches });
        await b.refresh();
        assert.notEqual(a.changes.latest, ownBefore);
        assert.notEqual(b.changes.latest, otherBefore);
      });
    },
  );

  if (storeUnderTest === 'postgres') {
    it('a write whose work swallowed a failed statement does not pass for committed', async () => {
      await withTwoStores(async (a) => {
        for (const options of [{ bookkeeping: true }, {}, { touches: [writeAreas.identity('x')] }]) {
          const swallowing = a.transaction(async (tx) => {
            await insertRow(tx, 'identities', identity('twice'));
            await insertRow(tx, 'identities', identity('twice')).catch(() => undefined);
          }, options);
          await assert.rejects(swallowing, Error, JSON.stringify(options));
        }
        assert.equal((await a.read((db) => selectRows(db, 'identities', {}))).length, 0);
      });
    });
  }
});
