// Prepared shapes (src/store/prepared.ts) on SQLite (npm test) and PostgreSQL (npm run test:postgres): a shape
// compiled once answers every later call with that call's arguments, text lists of any length bind as one
// parameter, transactions see their own writes through a shape, and two stores never share a compiled shape.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { checkListQuery } from './filter/list-query.js';
import type { SymbolTable } from './filter/filter-types.js';
import { inTextList, preparedQuery } from './prepared.js';
import { listRows } from './queries/entities.js';
import { allOf, columnIs, idIn, withAttributes } from './queries/scopes.js';
import { insertRows } from './queries/table-rows.js';
import type { Store } from './store.js';
import { openTestStore } from '../../test/store/test-store.js';

const at = '2024-01-01T00:00:00.000Z';
const identity = (id: string) => ({
  id,
  created_at: at,
  updated_at: at,
  tags: '{}',
  is_system: 0,
  name: `name-${id}`,
  type_id: 'Default',
});

const namesOf = preparedQuery((q, ids: readonly string[], typeId: string) =>
  q
    .selectFrom('identities')
    .select('name')
    .where('id', 'in', inTextList(q, ids))
    .where('type_id', '=', typeId)
    .orderBy('name'),
);
const nameOf = preparedQuery((q, id: string) => q.selectFrom('identities').select('name').where('id', '=', id));

const symbols: SymbolTable = {
  id: { kind: 'column', type: 'string', column: 'id' },
  name: { kind: 'column', type: 'string', column: 'name' },
  roleAttributes: {
    kind: 'set',
    type: 'string',
    table: 'identity_role_attributes',
    ownerColumn: 'entity_id',
    valueColumn: 'value',
  },
};

describe('prepared shapes', () => {
  let store: Store;
  let other: Store;
  const ids = Array.from({ length: 250 }, (_, index) => `p${String(index).padStart(3, '0')}`);
  before(async () => {
    [store, other] = await Promise.all([openTestStore(), openTestStore()]);
    await store.transaction((tx) => insertRows(tx, 'identities', ids.map(identity)));
    await store.transaction((tx) =>
      insertRows(tx, 'identity_role_attributes', [
        { entity_id: 'p001', value: 'x' },
        { entity_id: 'p001', value: 'y' },
        { entity_id: 'p002', value: 'x' },
      ]),
    );
    await other.transaction((tx) => insertRows(tx, 'identities', [identity('p001')]));
  });
  after(() => Promise.all([store.close(), other.close()]));

  it('runs one shape with each call’s arguments, lists of any length included', async () => {
    const names = (list: readonly string[], typeId = 'Default') =>
      store.read(async (db) => (await namesOf(db, list, typeId)).map((row) => row.name));
    assert.deepEqual(await names(['p001', 'p003']), ['name-p001', 'name-p003']);
    assert.deepEqual(await names(['p002']), ['name-p002']);
    assert.deepEqual(await names([]), []);
    assert.deepEqual(await names(['p001'], 'Router'), []);
    assert.equal((await names(ids)).length, 250);
  });

  it('sees a transaction’s own writes, and each store its own rows', async () => {
    await store.transaction(async (tx) => {
      await insertRows(tx, 'identities', [identity('inside')]);
      assert.deepEqual(await nameOf(tx, 'inside'), [{ name: 'name-inside' }]);
    });
    assert.deepEqual(await other.read((db) => nameOf(db, 'p001')), [{ name: 'name-p001' }]);
    assert.deepEqual(await other.read((db) => nameOf(db, 'p002')), []);
  });

  it('compiles list pages and counts per shape: new scope values and pages give their own answers', async () => {
    const page = (filter: string, scope = allOf(), limit = 2, offset = 0) =>
      store.read(async (db) => {
        const { rows, totalCount } = await listRows(
          db,
          'identities',
          checkListQuery({ filter, limit, offset }, { symbols }),
          scope,
        );
        return { ids: rows.map((row) => row.id), totalCount };
      });
    assert.deepEqual(await page('anyOf(roleAttributes) in ["x", "y"]'), { ids: ['p001', 'p002'], totalCount: 2 });
    assert.deepEqual(await page('anyOf(roleAttributes) = "y"'), { ids: ['p001'], totalCount: 1 });
    assert.deepEqual(await page('true', idIn(['p010', 'p005', 'p007']), 2, 1), {
      ids: ['p007', 'p010'],
      totalCount: 3,
    });
    assert.deepEqual(await page('true', idIn(['p100'])), { ids: ['p100'], totalCount: 1 });
    assert.deepEqual(await page('name != "x"', columnIs('id', 'p004')), { ids: ['p004'], totalCount: 1 });
    assert.deepEqual(await page('name != "x"', columnIs('id', 'p005')), { ids: ['p005'], totalCount: 1 });
    const both = withAttributes('identity_role_attributes', ['x', 'y'], 'AllOf');
    assert.deepEqual(await page('true', both), { ids: ['p001'], totalCount: 1 });
    assert.deepEqual(await page('true', withAttributes('identity_role_attributes', ['x'], 'AllOf')), {
      ids: ['p001', 'p002'],
      totalCount: 2,
    });
  });
});
