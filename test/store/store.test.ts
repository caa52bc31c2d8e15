// The store tier: the same tests on SQLite (npm test) and on PostgreSQL (npm run test:postgres), through the store's
// interface and query modules only: migrations from empty, constraint errors as StoreError, byte-order sorting and
// paging of list queries, long value lists.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiError } from '../../src/errors/api-error.js';
import { checkListQuery } from '../../src/store/filter/list-query.js';
import type { SymbolTable } from '../../src/store/filter/filter-types.js';
import { migrations } from '../../src/store/migrations/index.js';
import { appliedMigrations } from '../../src/store/migrations/migrate.js';
import { listRows } from '../../src/store/queries/entities.js';
import { pairRows } from '../../src/store/queries/pair-rows.js';
import {
  edgeRouterPolicyKind,
  serviceEdgeRouterPolicyKind,
  servicePolicyKind,
  type PolicyKind,
} from '../../src/store/queries/policy-tables.js';
import {
  countRows,
  deleteRows,
  insertRow,
  insertRows,
  selectRows,
  type Row,
} from '../../src/store/queries/table-rows.js';
import { StoreError, type Db, type Store, type TableName } from '../../src/store/store.js';
import { emptyDatabase, openTestStore, storeUnderTest } from './test-store.js';

const at = '2024-01-01T00:00:00.000Z';
const base = (id: string) => ({ id, created_at: at, updated_at: at, tags: '{}', is_system: 0 });
const identity = (id: string, name = id) => ({ ...base(id), name, type_id: 'Default' });
const authenticator = (id: string, identityId: string, method: string) => ({
  ...base(id),
  identity_id: identityId,
  method,
});

/** The StoreError the write failed with (the test fails when it succeeded or failed otherwise). */
async function refusal(store: Store, write: (tx: Db) => Promise<unknown>): Promise<StoreError> {
  const error = await store.transaction(write).then(
    () => assert.fail('the database accepted the write'),
    (failure: unknown) => failure,
  );
  assert.ok(error instanceof StoreError, String(error));
  return error;
}

describe(`store tier on ${storeUnderTest}`, () => {
  describe('migrations from empty', () => {
    it('applies every migration once, and a second start applies nothing and keeps the data', async () => {
      const database = await emptyDatabase();
      try {
        const first = await database.open();
        assert.deepEqual(
          (await first.read(appliedMigrations)).sort((a, b) => a - b),
          migrations.map((m) => m.version),
        );
        await first.transaction((tx) => insertRow(tx, 'identities', identity('kept')));
        await first.close();
        const second = await database.open();
        assert.deepEqual((await second.read(appliedMigrations)).length, migrations.length);
        assert.equal((await second.read((db) => selectRows(db, 'identities', { id: 'kept' }))).length, 1);
        await second.close();
      } finally {
        await database.remove();
      }
    });

    it('migrates to each intermediate version and on to the latest (as a controller upgraded release by release)', async () => {
      const database = await emptyDatabase();
      try {
        const older = await database.open(migrations.slice(0, -1));
        assert.deepEqual((await older.read(appliedMigrations)).length, migrations.length - 1);
        await older.close();
        const latest = await database.open();
        assert.deepEqual((await latest.read(appliedMigrations)).length, migrations.length);
        await latest.close();
      } finally {
        await database.remove();
      }
    });

    it('017 carries every pair of a store populated at 016 over to the integer keys, and numbers new rows after it', async () => {
      const database = await emptyDatabase();
      try {
        const at016 = await database.open(migrations.filter((migration) => migration.version <= 16));
        const router = (id: string) => ({ ...base(id), name: id, is_edge: 1 });
        const service = (id: string) => ({
          ...base(id),
          name: id,
          terminator_strategy: 'smartrouting',
          encryption_required: 1,
        });
        // Pairs as 016 stored them, by text ids (written as rows, since the typed schema is 017's).
        const pairs016 = {
          identity_services: [
            ['i1', 's1', 1, 0],
            ['i1', 's2', 2, 1],
            ['i2', 's2', 0, 1],
          ].map(([i, sv, dial, bind]) => ({ identity_id: i, service_id: sv, dial, bind })),
          identity_edge_routers: [
            ['i1', 'r1', 1],
            ['i2', 'r1', 3],
            ['i2', 'r2', 1],
          ].map(([i, r, count]) => ({ identity_id: i, edge_router_id: r, count })),
          service_edge_routers: [
            ['s1', 'r2', 2],
            ['s2', 'r1', 1],
          ].map(([sv, r, count]) => ({ service_id: sv, edge_router_id: r, count })),
        };
        await at016.transaction(async (tx) => {
          await insertRows(tx, 'identities', [identity('i2'), identity('i1'), identity('i3')]);
          await insertRows(tx, 'services', [service('s2'), service('s1')]);
          await insertRows(tx, 'routers', [router('r2'), router('r1')]);
          for (const [table, rows] of Object.entries(pairs016))
            for (const row of rows) await insertRow(tx, table as TableName, row);
        });
        await at016.close();

        const latest = await database.open();
        const read = (kind: PolicyKind) => latest.read((db) => pairRows(kind).select(db, {}));
        const sorted = (rows: Row[]) => rows.map((row) => JSON.stringify(row)).sort();
        assert.deepEqual(sorted(await read(servicePolicyKind)), sorted(pairs016.identity_services));
        assert.deepEqual(sorted(await read(edgeRouterPolicyKind)), sorted(pairs016.identity_edge_routers));
        assert.deepEqual(sorted(await read(serviceEdgeRouterPolicyKind)), sorted(pairs016.service_edge_routers));

        // A row made after the upgrade gets a key no other row has, and takes its pairs with it when deleted.
        await latest.transaction((tx) => insertRow(tx, 'identities', identity('i4')));
        const keys = (await latest.read((db) => selectRows(db, 'identities'))).map((row) => row.seq);
        assert.equal(new Set(keys).size, 4, `keys ${keys.join(', ')}`);
        assert.ok(keys.every((key) => key > 0));
        await latest.transaction((tx) =>
          pairRows(servicePolicyKind).insert(tx, { identity_id: 'i4', service_id: 's1', dial: 1, bind: 0 }),
        );
        await latest.transaction((tx) => deleteRows(tx, 'identities', { id: ['i4', 'i1'] }));
        assert.deepEqual(
          sorted(await read(servicePolicyKind)),
          sorted(pairs016.identity_services.filter((row) => row.identity_id === 'i2')),
        );
        await latest.close();
      } finally {
        await database.remove();
      }
    });

    // PostgreSQL's advisory lock; several processes on one SQLite file (workers) are issue 14 part B's.
    if (storeUnderTest === 'postgres') {
      it('two stores opening an empty database at the same moment migrate it once', async () => {
        const database = await emptyDatabase();
        try {
          const stores = await Promise.all([database.open(), database.open()]);
          const versions = await stores[0].read(appliedMigrations);
          assert.equal(versions.length, migrations.length, `versions recorded: ${versions.join(', ')}`);
          for (const store of stores) await store.close();
        } finally {
          await database.remove();
        }
      });
    }
  });

  describe("another store's commits on the same database", () => {
    it('are noticed at the next refresh, also after a write of this store was rolled back', async () => {
      const database = await emptyDatabase();
      try {
        const [a, b] = [await database.open(), await database.open()];
        // A write of A that fails after it began: on PostgreSQL it had taken (and moved, uncommitted) the generation.
        await refusal(a, async (tx) => {
          await insertRow(tx, 'identities', identity('r1', 'first'));
          await insertRow(tx, 'identities', identity('r2', 'first'));
        });
        const before = a.changes.latest;
        await b.transaction((tx) => insertRow(tx, 'identities', identity('r3', 'third')));
        await a.refresh();
        assert.notEqual(
          a.changes.latest,
          before,
          "B's commit (say, a logout) must drop A's caches at A's next request",
        );
        await a.close();
        await b.close();
      } finally {
        await database.remove();
      }
    });
  });

  describe('bookkeeping writes', () => {
    it('commit like any write but move no generation, here or at the other store; a model write moves both', async () => {
      const database = await emptyDatabase();
      try {
        const [a, b] = [await database.open(), await database.open()];
        await b.refresh();
        const [ownBefore, otherBefore] = [a.changes.latest, b.changes.latest];
        await a.transaction((tx) => insertRow(tx, 'cluster_secrets', { name: 'beat', value: '1', updated_at: at }), {
          bookkeeping: true,
        });
        await b.refresh();
        assert.deepEqual([a.changes.latest, b.changes.latest], [ownBefore, otherBefore]);
        assert.equal(
          (await b.read((db) => selectRows(db, 'cluster_secrets', { name: 'beat' }))).length,
          1,
          'the bookkeeping write committed',
        );
        await a.transaction((tx) => insertRow(tx, 'identities', identity('model')));
        await b.refresh();
        assert.notEqual(a.changes.latest, ownBefore);
        assert.notEqual(b.changes.latest, otherBefore);
        await a.close();
        await b.close();
      } finally {
        await database.remove();
      }
    });
  });

  describe('constraint errors', () => {
    let store: Store;
    before(async () => {
      store = await openTestStore();
      await store.transaction((tx) => insertRows(tx, 'identities', [identity('i1', 'one'), identity('i2', 'two')]));
      await store.transaction((tx) => insertRow(tx, 'authenticators', authenticator('a1', 'i1', 'updb')));
    });
    after(() => store.close());

    it('a unique name: kind unique, with the table and column', async () => {
      const error = await refusal(store, (tx) => insertRow(tx, 'identities', identity('i3', 'one')));
      assert.deepEqual([error.kind, error.table, error.columns], ['unique', 'identities', ['name']]);
    });

    it('one authenticator per method per identity (migration 015)', async () => {
      const error = await refusal(store, (tx) => insertRow(tx, 'authenticators', authenticator('a2', 'i1', 'updb')));
      assert.deepEqual(
        [error.kind, error.table, error.columns],
        ['unique', 'authenticators', ['identity_id', 'method']],
      );
      await store.transaction((tx) => insertRow(tx, 'authenticators', authenticator('a3', 'i1', 'cert')));
      await store.transaction((tx) => insertRow(tx, 'authenticators', authenticator('a4', 'i2', 'updb')));
    });

    it('one outstanding enrollment per method per identity; router enrollments (no identity) never collide', async () => {
      const enrollment = (id: string, identityId: string | null) => ({
        ...base(id),
        method: identityId ? 'ott' : 'erott',
        token: `t-${id}`,
        expires_at: at,
        identity_id: identityId,
        jwt: 'jwt',
      });
      await store.transaction((tx) =>
        insertRows(tx, 'enrollments', [enrollment('e1', 'i1'), enrollment('e2', null), enrollment('e3', null)]),
      );
      const error = await refusal(store, (tx) => insertRow(tx, 'enrollments', enrollment('e4', 'i1')));
      assert.deepEqual([error.kind, error.table, error.columns], ['unique', 'enrollments', ['identity_id', 'method']]);
    });

    it('one default admin (migration 015)', async () => {
      await store.transaction((tx) => insertRow(tx, 'identities', { ...identity('admin1'), is_default_admin: 1 }));
      const error = await refusal(store, (tx) =>
        insertRow(tx, 'identities', { ...identity('admin2'), is_default_admin: 1 }),
      );
      assert.deepEqual([error.kind, error.table, error.columns], ['unique', 'identities', ['is_default_admin']]);
    });

    it('a reference to a missing row: kind foreignKey', async () => {
      const error = await refusal(store, (tx) =>
        insertRow(tx, 'authenticators', authenticator('a5', 'missing', 'updb')),
      );
      assert.equal(error.kind, 'foreignKey');
    });

    it('a missing required value: kind check', async () => {
      const error = await refusal(store, (tx) => insertRow(tx, 'identities', { ...base('i9'), type_id: 'Default' }));
      assert.equal(error.kind, 'check');
    });

    it('text with U+0000: SQLite stores it as any character, PostgreSQL (which cannot) refuses it as invalid, never a 500', async () => {
      const write = store.transaction((tx) => insertRow(tx, 'identities', identity('nul', 'a\u0000b')));
      const read = () => store.read((db) => selectRows(db, 'identities', { name: 'a\u0000b' }));
      if (storeUnderTest === 'sqlite') {
        await write;
        assert.equal((await read()).length, 1);
      } else {
        await assert.rejects(
          write,
          (error: unknown) => error instanceof ApiError && error.code === 'COULD_NOT_VALIDATE',
        );
        await assert.rejects(
          read(),
          (error: unknown) => error instanceof ApiError && error.code === 'COULD_NOT_VALIDATE',
        );
      }
    });

    it('a refused write leaves nothing of its transaction behind', async () => {
      await refusal(store, async (tx) => {
        await insertRow(tx, 'identities', identity('i4', 'four'));
        await insertRow(tx, 'identities', identity('i5', 'one'));
      });
      assert.deepEqual(await store.read((db) => selectRows(db, 'identities', { id: ['i4', 'i5'] })), []);
    });
  });

  describe('list queries', () => {
    let store: Store;
    // Byte order, as upstream compares: upper case before '_' before lower case, multi-byte UTF-8 after ASCII.
    const names = ['zed', 'Zed', '_under', 'alpha', 'Beta', 'éclair', 'a b', 'a', 'A', '10', '9'];
    const byteOrder = [...names].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
    const symbols: SymbolTable = {
      id: { kind: 'column', type: 'string', column: 'id' },
      name: { kind: 'column', type: 'string', column: 'name' },
    };
    const list = async (filter: string) => {
      const page = await store.read((db) => listRows(db, 'identities', checkListQuery({ filter }, { symbols })));
      return { names: page.rows.map((row) => row.name as string), total: page.totalCount };
    };
    before(async () => {
      store = await openTestStore();
      await store.transaction((tx) =>
        insertRows(
          tx,
          'identities',
          names.map((name, index) => identity(`id${String(index).padStart(2, '0')}`, name)),
        ),
      );
    });
    after(() => store.close());

    it('sorts strings byte-wise, both directions', async () => {
      assert.deepEqual((await list('true sort by name asc limit none')).names, byteOrder);
      assert.deepEqual((await list('true sort by name desc limit none')).names, [...byteOrder].reverse());
    });

    it('compares strings byte-wise in filters', async () => {
      assert.deepEqual(
        (await list('name < "a" sort by name limit none')).names,
        byteOrder.filter((name) => Buffer.compare(Buffer.from(name), Buffer.from('a')) < 0),
      );
      assert.deepEqual((await list('name contains "a" and name icontains "B" sort by name')).names, ['Beta', 'a b']);
    });

    it('pages with skip and limit and counts the whole match', async () => {
      const page = await list('true sort by name skip 3 limit 4');
      assert.deepEqual(page, { names: byteOrder.slice(3, 7), total: names.length });
      assert.deepEqual(await list('true sort by name skip 100 limit 4'), { names: [], total: names.length });
    });
  });

  describe('long value lists', () => {
    let store: Store;
    // More values than either database binds as separate parameters (SQLite 32,766; PostgreSQL 65,535).
    const VALUES = 70_000;
    const values = Array.from({ length: VALUES }, (_, index) => `attribute-${index}`);
    before(async () => {
      store = await openTestStore();
      await store.transaction(async (tx) => {
        await insertRow(tx, 'identities', identity('holder'));
        for (let from = 0; from < VALUES; from += 10_000) {
          await insertRows(
            tx,
            'identity_role_attributes',
            values.slice(from, from + 10_000).map((value) => ({ entity_id: 'holder', value })),
          );
        }
      });
    });
    after(() => store.close());

    it(`matches an IN list of ${VALUES} values bound as one parameter`, async () => {
      const wanted = [
        ...values.filter((_, index) => index % 2 === 0),
        ...Array.from({ length: 5_000 }, (_, index) => `absent-${index}`),
      ];
      const rows = await store.read((db) => selectRows(db, 'identity_role_attributes', { value: wanted }));
      assert.equal(rows.length, VALUES / 2);
      assert.equal(await store.read((db) => countRows(db, 'identity_role_attributes')), VALUES);
    });
  });
});
