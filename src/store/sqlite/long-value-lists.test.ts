import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { Store } from '../store.js';
import { openSqliteStore } from './sqlite-store.js';

/** Past SQLite's limit of 32,766 bound variables. */
const MANY = 40_000;
const ids = (count: number, prefix = 'id') => Array.from({ length: count }, (_, index) => `${prefix}-${index}`);

describe('long value lists in SQLite statements', () => {
  let store: Store;
  before(async () => {
    const migrations = [
      { version: 1, name: 'items', statements: ['CREATE TABLE items (id TEXT PRIMARY KEY, rank INTEGER, note TEXT)'] },
    ];
    store = await openSqliteStore({ file: ':memory:', migrations });
    await store.transaction((tx) =>
      tx
        .insertInto('items')
        .values(ids(50).map((id, rank) => ({ id, rank, note: rank % 2 ? null : 'even' })))
        .execute(),
    );
  });
  after(() => store.close());

  const wanted = [...ids(MANY, 'missing'), 'id-3', 'id-7'];

  it('rewrites a query only when its lists hold more than 100 values together (rows × columns of an insert too)', async () => {
    const compiled = await store.read((db) => {
      const rows = (count: number) => ids(count, 'x').map((id, rank) => ({ id, rank, note: 'n' }));
      return Promise.resolve([
        db.insertInto('items').values(rows(33)).compile().sql, // 99 values
        db.insertInto('items').values(rows(34)).compile().sql, // 102
        db.selectFrom('items').select('id').where('id', 'in', ids(100)).compile().sql,
        db.selectFrom('items').select('id').where('id', 'in', ids(101)).compile().sql,
      ]);
    });
    assert.deepEqual(
      compiled.map((text) => text.includes('json_each')),
      [false, true, false, true],
    );
  });

  it('runs a query-builder IN list of any length', async () => {
    const found = await store.read((db) =>
      db.selectFrom('items').select('id').where('id', 'in', wanted).orderBy('id').execute(),
    );
    assert.deepEqual(
      found.map((row) => row.id),
      ['id-3', 'id-7'],
    );
    const rest = await store.read((db) => db.selectFrom('items').select('id').where('id', 'not in', wanted).execute());
    assert.equal(rest.length, 48);
  });

  it('runs a raw IN (sql.join(values)) of any length', async () => {
    const found = await store.read((db) =>
      sql<{ id: string }>`SELECT id FROM items WHERE id IN (${sql.join(wanted)}) ORDER BY id`.execute(db),
    );
    assert.deepEqual(
      found.rows.map((row) => row.id),
      ['id-3', 'id-7'],
    );
    const rest = await store.read((db) =>
      sql<{ n: number }>`SELECT count(*) AS n FROM items WHERE id NOT IN (${sql.join(wanted)})`.execute(db),
    );
    assert.equal(rest.rows[0]?.n, 48);
  });

  it('inserts any number of rows, keeping numbers, text and nulls', async () => {
    const rows = ids(MANY, 'bulk').map((id, rank) => ({ id, rank, note: rank % 2 ? null : `note ${rank}` }));
    await store.transaction((tx) => tx.insertInto('items').values(rows).execute());
    const counted = await store.read((db) =>
      sql<{ n: number; ranks: number; notes: number }>`
      SELECT count(*) AS n, sum(rank) AS ranks, count(note) AS notes FROM items WHERE id LIKE 'bulk-%'`.execute(db),
    );
    assert.deepEqual(counted.rows[0], { n: MANY, ranks: (MANY * (MANY - 1)) / 2, notes: MANY / 2 });
    const one = await store.read((db) =>
      db.selectFrom('items').selectAll().where('id', '=', 'bulk-41').executeTakeFirst(),
    );
    assert.deepEqual(one, { id: 'bulk-41', rank: 41, note: null });
    assert.equal(
      typeof (
        await store.read((db) => db.selectFrom('items').select('rank').where('id', '=', 'bulk-40').executeTakeFirst())
      )?.rank,
      'number',
    );
  });

  it('keeps short lists as one variable per value', async () => {
    const compiled = await store.read((db) =>
      Promise.resolve(db.selectFrom('items').select('id').where('id', 'in', ['a', 'b', 'c']).compile()),
    );
    assert.match(compiled.sql, /in \(\?, \?, \?\)/);
  });
});
