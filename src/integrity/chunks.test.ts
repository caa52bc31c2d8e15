import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { insertRow, rowsInRange } from '../store/queries/table-rows.js';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';
import type { Store, TableName } from '../store/store.js';
import { ChunkPacer, walkChunks, type Chunk } from './chunks.js';

/** A table of this test's own migration, which the typed schema does not know. */
const things = 'things' as TableName;

describe('walkChunks', () => {
  let store: Store;
  const ids = Array.from({ length: 25 }, (_, i) => `id-${String(i).padStart(2, '0')}`);
  before(async () => {
    const migration = {
      version: 1,
      name: 'things',
      statements: ['CREATE TABLE things (id TEXT PRIMARY KEY, kind TEXT, is_even INTEGER)'],
    };
    store = await openSqliteStore({ file: ':memory:', migrations: [migration] });
    await store.transaction(async (tx) => {
      for (const [index, id] of ids.entries())
        await insertRow(tx, things, { id, kind: index % 2 ? 'odd' : 'even', is_even: index % 2 ? 0 : 1 });
    });
  });
  after(() => store.close());

  /** A pacer whose chunks stay at `size` rows: every chunk reports as taking the target time. */
  const fixedPacer = (size: number, signal?: AbortSignal) => {
    const pacer = new ChunkPacer(4, signal);
    while (pacer.size > size) pacer.took(100);
    const took = pacer.took.bind(pacer);
    pacer.took = () => took(4);
    return pacer;
  };

  it('visits every row once in id order; the chunks tile the id space and the last one is open-ended', async () => {
    const chunks: Chunk[] = [];
    await store.read((db) =>
      walkChunks(db, { table: things, columns: ['kind'] }, fixedPacer(8), (chunk) => void chunks.push(chunk)),
    );
    assert.deepEqual(
      chunks.flatMap((c) => c.rows.map((r) => r.id)),
      ids,
    );
    assert.equal(chunks[0]!.after, undefined);
    for (let i = 1; i < chunks.length; i++) assert.equal(chunks[i]!.after, chunks[i - 1]!.upTo);
    assert.equal(chunks.at(-1)!.upTo, undefined);
  });

  it('lets other work run between chunks', async () => {
    let hasOtherWorkRun = false;
    setImmediate(() => (hasOtherWorkRun = true));
    const seenBeforeLast: boolean[] = [];
    await store.read((db) =>
      walkChunks(db, { table: things, columns: [] }, fixedPacer(5), () => void seenBeforeLast.push(hasOtherWorkRun)),
    );
    assert.equal(seenBeforeLast[0], false);
    assert.equal(seenBeforeLast.at(-1), true);
  });

  it('stops when the handler says so and tells where to resume', async () => {
    const seen: unknown[] = [];
    const resume = await store.read((db) =>
      walkChunks(
        db,
        { table: things, columns: [], filter: { flag: 'is_even' } },
        fixedPacer(4),
        (c) => (seen.push(...c.rows.map((r) => r.id)), false),
      ),
    );
    assert.deepEqual(seen, ['id-00', 'id-02', 'id-04', 'id-06']);
    assert.equal(resume, 'id-06');
    const rest: unknown[] = [];
    await store.read((db) =>
      walkChunks(
        db,
        { table: things, columns: [], filter: { flag: 'is_even' } },
        fixedPacer(4),
        (c) => void rest.push(...c.rows.map((r) => r.id)),
        resume,
      ),
    );
    assert.deepEqual(
      rest,
      ids.filter((_, i) => i % 2 === 0 && i > 6),
    );
  });

  it('stops between chunks once cancelled', async () => {
    const abort = new AbortController();
    const walk = store.read((db) =>
      walkChunks(db, { table: things, columns: [] }, fixedPacer(5, abort.signal), () =>
        abort.abort(new Error('stopping')),
      ),
    );
    await assert.rejects(walk, /stopping/);
  });

  it('sizes chunks to the time they take', () => {
    const pacer = new ChunkPacer(4);
    const start = pacer.size;
    pacer.took(1);
    assert.equal(pacer.size, start * 2);
    pacer.took(20);
    pacer.took(20);
    assert.equal(pacer.size, start / 2);
    for (let i = 0; i < 20; i++) pacer.took(100);
    assert.equal(pacer.size, 1);
  });

  it('reads the rows of a chunk range', async () => {
    const count = async (chunk: Pick<Chunk, 'after' | 'upTo'>) =>
      (await store.read((db) => rowsInRange(db, things, ['id'], 'id', chunk))).length;
    assert.equal(await count({ after: undefined, upTo: undefined }), 25);
    assert.equal(await count({ after: 'id-09', upTo: undefined }), 15);
    assert.equal(await count({ after: 'id-09', upTo: 'id-12' }), 3);
  });
});
