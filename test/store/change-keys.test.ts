// What a commit moves (src/store/changes.ts), seen by the store that made it and by another on the same database at
// its next refresh: the tables it changed rows of, the identities whose own rows it changed, nothing for a
// bookkeeping write or one that changed no row. The same tests on SQLite (npm test) and PostgreSQL (test:postgres).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
// eslint-disable-next-line @typescript-eslint/no-restricted-imports -- the test records a prune as the PostgreSQL store's does: its prunes counter is PostgreSQL's only, outside the generated schema
import { sql } from 'kysely';
import { changeKeys } from '../../src/store/changes.js';
import { ReadCache } from '../../src/store/read-cache.js';
import { deleteRows, insertRow, selectMatching, updateMatching } from '../../src/store/queries/table-rows.js';
import { writeAreas, type Store } from '../../src/store/store.js';
import { emptyDatabase, storeUnderTest, type EmptyDatabase } from './test-store.js';

const at = '2024-01-01T00:00:00.000Z';
const base = (id: string) => ({ id, created_at: at, updated_at: at, tags: '{}', is_system: 0 });
const identity = (id: string) => ({ ...base(id), name: id, type_id: 'Default' });
const authenticator = (id: string, identityId: string) => ({ ...base(id), identity_id: identityId, method: 'updb' });
const service = (id: string) => ({
  ...base(id),
  name: id,
  terminator_strategy: 'smartrouting',
  encryption_required: 1,
});

describe(`change keys on ${storeUnderTest}`, () => {
  let database: EmptyDatabase;
  let a: Store;
  let b: Store;
  before(async () => {
    database = await emptyDatabase();
    [a, b] = [await database.open(), await database.open()];
    await a.transaction(async (tx) => {
      for (const id of ['one', 'two']) await insertRow(tx, 'identities', identity(id));
    });
    await b.refresh();
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await database?.remove();
  });

  /** Runs `write` on A and tells which of `keys` moved since, on A and (after its refresh) on B. */
  async function moved(
    write: () => Promise<unknown>,
    keys: Record<string, readonly `${'table' | 'identity'}:${string}`[]>,
  ) {
    const since = [a.changes.now(), b.changes.now()];
    await write();
    await b.refresh();
    return Object.fromEntries(
      Object.entries(keys).map(([name, list]) => [
        name,
        [a.changes.changedSince(list, since[0]!), b.changes.changedSince(list, since[1]!)],
      ]),
    );
  }

  it('a write moves the tables it changed rows of, here and on the other store, and no other', async () => {
    const seen = await moved(() => a.transaction((tx) => insertRow(tx, 'services', service('s1'))), {
      services: changeKeys.tables('services'),
      identities: changeKeys.tables('identities'),
      one: changeKeys.ofIdentity('one'),
    });
    assert.deepEqual(seen, { services: [true, true], identities: [false, false], one: [false, false] });
  });

  it("a write naming an identity's area moves that identity's key, not another's", async () => {
    const seen = await moved(
      () =>
        a.transaction((tx) => insertRow(tx, 'authenticators', authenticator('au1', 'one')), {
          touches: [writeAreas.identity('one')],
        }),
      {
        one: changeKeys.ofIdentity('one'),
        two: changeKeys.ofIdentity('two'),
        authenticators: changeKeys.tables('authenticators'),
      },
    );
    assert.deepEqual(seen, { one: [true, true], two: [false, false], authenticators: [true, true] });
  });

  it("a strict write of an identity's own rows moves every identity's answers", async () => {
    const seen = await moved(
      () => a.transaction((tx) => insertRow(tx, 'authenticators', authenticator('au2', 'two'))),
      { one: changeKeys.ofIdentity('one') },
    );
    assert.deepEqual(seen, { one: [true, true] });
  });

  it('a bookkeeping write, and a write that changed no row, move nothing', async () => {
    const seen = await moved(
      async () => {
        await a.transaction((tx) => insertRow(tx, 'services', service('s2')), { bookkeeping: true });
        await a.transaction((tx) => deleteRows(tx, 'services', { id: 'no-such-service' }));
      },
      { services: changeKeys.tables('services') },
    );
    assert.deepEqual(seen, { services: [false, false] });
  });

  it('a store whose last look is older than what the change log still holds drops everything at its next look', async () => {
    const since = b.changes.now();
    await a.transaction((tx) => insertRow(tx, 'identities', identity('pruned')));
    // As a prune that removed that commit's row before B looked records it (PostgreSQL: its transaction id; SQLite: its seq).
    const logged = await a.read((db) => selectMatching(db, 'cluster_changes', {}));
    const through = logged.map((row) => BigInt(String(row.xid ?? row.seq))).reduce((x, y) => (x > y ? x : y));
    await a.transaction(async (tx) => {
      await updateMatching(
        tx,
        'cluster_changes_pruned',
        { through: storeUnderTest === 'postgres' ? String(through) : Number(through) },
        { id: 1 },
      );
      if (storeUnderTest === 'postgres') await sql`UPDATE cluster_changes_pruned SET prunes = prunes + 1`.execute(tx);
    });
    await b.refresh();
    assert.equal(
      b.changes.changedSince(changeKeys.tables('services'), since),
      true,
      'an answer about services is dropped too',
    );
  });

  it('a prune is lost once: a transaction older than what it pruned, still open, does not drop everything again', async () => {
    // PostgreSQL's snapshots keep the oldest running transaction's id as their xmin, whatever schema it writes.
    const older = await database.open();
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let began: () => void = () => undefined;
    const begun = new Promise<void>((resolve) => (began = resolve));
    // SQLite has one writer and orders its log by commit, so there the prune is all there is to it.
    const open =
      storeUnderTest === 'postgres'
        ? older.transaction(
            async (tx) => {
              await insertRow(tx, 'identities', identity('held-open'));
              began();
              await held;
            },
            { touches: [writeAreas.identity('held-open')] },
          )
        : (began(), Promise.resolve());
    try {
      await begun;
      // Area writes, which run beside the one held open (a strict write would wait for it).
      const newIdentity = (id: string) =>
        a.transaction((tx) => insertRow(tx, 'identities', identity(id)), { touches: [writeAreas.identity(id)] });
      await newIdentity('pruned-again');
      await a.transaction(
        async (tx) => {
          const logged = await selectMatching(tx, 'cluster_changes', {});
          const through = logged.map((row) => BigInt(String(row.xid ?? row.seq))).reduce((x, y) => (x > y ? x : y));
          await updateMatching(
            tx,
            'cluster_changes_pruned',
            { through: storeUnderTest === 'postgres' ? String(through) : Number(through) },
            { id: 1 },
          );
          if (storeUnderTest === 'postgres')
            await sql`UPDATE cluster_changes_pruned SET prunes = prunes + 1`.execute(tx);
        },
        { touches: ['test:prune'] },
      );
      await b.refresh();
      const since = b.changes.now();
      await newIdentity('after-the-prune');
      await b.refresh();
      assert.equal(b.changes.changedSince(changeKeys.tables('identities'), since), true);
      assert.equal(
        b.changes.changedSince(changeKeys.tables('services'), since),
        false,
        'the next look drops only what moved',
      );
    } finally {
      release();
      await open;
      await older.close();
      await b.refresh();
    }
  });

  it("keeps a read's answer on the other store until what it depends on moves there", async () => {
    const cache = new ReadCache<number>(b);
    let builds = 0;
    const read = () => cache.get('services', changeKeys.tables('services'), () => Promise.resolve(++builds));
    assert.equal(await read(), 1);
    await a.transaction((tx) => insertRow(tx, 'identities', identity('three')));
    await b.refresh();
    assert.equal(await read(), 1, 'an identity write leaves an answer about services standing');
    await a.transaction((tx) => insertRow(tx, 'services', service('s3')));
    assert.equal(await read(), 1, 'not before the refresh that sees the commit');
    await b.refresh();
    assert.equal(await read(), 2);
  });
});
