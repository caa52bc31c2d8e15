import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AppDeps } from '../app-deps.js';
import { ApiError } from '../errors/api-error.js';
import { fixedClock } from '../lib/clock.js';
import { defaultIds } from '../lib/ids.js';
import { compileSqlite } from '../store/filter/filter-test-fixture.js';
import { selectMatching } from '../store/queries/table-rows.js';
import type { Store, TableName } from '../store/store.js';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';
import { boolean, defineEntity, integer, json, stringSet, text } from './define-entity.js';
import { findEntity, listEntities } from './entity-store.js';
import { createEntity, createEntityIn, modifyEntity, removeEntity, requireEntity } from './entity-writes.js';
import { fieldIs } from './crud-handlers.js';

const calls: string[] = [];
const widgetRoles = 'widget_role_attributes' as TableName;
const widget = defineEntity({
  type: 'widget',
  path: 'widgets',
  // A table of this test's own migration, which the typed schema does not know.
  table: 'widgets' as TableName,
  idKind: 'base62',
  fields: {
    name: text({ unique: true }),
    serial: text({ unique: true }),
    cost: integer({ fallback: () => 0 }),
    isShiny: boolean(),
    sealed: boolean({ writable: 'create' }),
    appData: json(),
    roleAttributes: stringSet(),
  },
  links: (w) => ({ parts: `./widgets/${String(w.id)}/parts` }),
  rules: {
    validate(_context, change) {
      calls.push(`validate ${change.op}`);
      if (change.after?.cost === 13) return Promise.reject(ApiError.invalidField('cost', 'unlucky', 13));
      return Promise.resolve();
    },
    afterWrite(_context, change) {
      calls.push(`afterWrite ${change.op}`);
      if (change.after?.name === 'explode') return Promise.reject(new Error('side effect failed'));
      return Promise.resolve();
    },
  },
});

const schema = {
  version: 1,
  name: 'widgets',
  statements: [
    `CREATE TABLE widgets (id TEXT PRIMARY KEY, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, tags TEXT NOT NULL,
      is_system INTEGER NOT NULL DEFAULT 0, name TEXT NOT NULL UNIQUE, serial TEXT UNIQUE, cost INTEGER, is_shiny INTEGER,
      sealed INTEGER, app_data TEXT, role_attributes TEXT)`,
    `CREATE TABLE widget_role_attributes (entity_id TEXT NOT NULL REFERENCES widgets(id) ON DELETE CASCADE, value TEXT NOT NULL, PRIMARY KEY (entity_id, value))`,
  ],
};

describe('the entity kit', () => {
  let store: Store;
  let deps: AppDeps;
  const clock = fixedClock('2026-03-01T12:00:00.000Z');
  before(async () => {
    store = await openSqliteStore({ file: ':memory:', migrations: [schema] });
    deps = { store, clock, ids: defaultIds } as unknown as AppDeps;
  });
  after(() => store.close());

  const get = (id: string) => store.read((db) => findEntity(db, widget, id));
  const expectField = async (work: Promise<unknown>, field: string, reason?: RegExp) => {
    await assert.rejects(work, (error: unknown) => {
      assert.ok(error instanceof ApiError, String(error));
      assert.equal(error.code, 'COULD_NOT_VALIDATE');
      assert.equal((error.cause as { field: string }).field, field);
      if (reason) assert.match((error.cause as { reason: string }).reason, reason);
      return true;
    });
  };

  it('creates with fallbacks, sorted de-duplicated sets and timestamps from the clock', async () => {
    const id = await createEntity(deps, widget, { name: 'a', roleAttributes: ['b', 'a', 'b'], tags: { env: 'prod' } });
    const stored = await get(id);
    assert.equal(stored?.cost, 0);
    assert.equal(stored?.isShiny, false);
    assert.deepEqual(stored?.roleAttributes, ['a', 'b']);
    assert.deepEqual(stored?.tags, { env: 'prod' });
    assert.equal(stored?.createdAt, '2026-03-01T12:00:00.000Z');
    assert.match(id, /^[0-9A-Za-z]{1,22}$/);
  });

  it('renders an empty set as null', async () => {
    const id = await createEntity(deps, widget, { name: 'empty-set', roleAttributes: [] });
    assert.equal((await get(id))?.roleAttributes, null);
  });

  it('refuses a duplicate or empty name with COULD_NOT_VALIDATE on name', async () => {
    await createEntity(deps, widget, { name: 'dup' });
    await expectField(createEntity(deps, widget, { name: 'dup' }), 'name', /must be unique/);
    await expectField(createEntity(deps, widget, { name: '  ' }), 'name', /required/);
    const other = await createEntity(deps, widget, { name: 'other' });
    await expectField(modifyEntity(deps, widget, other, { name: 'dup' }, 'patch'), 'name', /must be unique/);
    await expectField(modifyEntity(deps, widget, other, { name: 'dup' }, 'update'), 'name', /must be unique/);
    await expectField(modifyEntity(deps, widget, other, { name: '' }, 'patch'), 'name', /required/);
    assert.equal((await get(other))?.name, 'other');
  });

  it('maps another unique index to its field', async () => {
    await createEntity(deps, widget, { name: 's1', serial: 'X-1' });
    await expectField(
      createEntity(deps, widget, { name: 's2', serial: 'X-1' }),
      'serial',
      /duplicate value 'X-1' in unique index on widgets store/,
    );
  });

  it('PUT writes every writable field, emptying those left out; create-only fields keep their value', async () => {
    const id = await createEntity(deps, widget, {
      name: 'put',
      cost: 5,
      isShiny: true,
      sealed: true,
      roleAttributes: ['x'],
      tags: { a: 'b' },
    });
    clock.advance(1000);
    await modifyEntity(deps, widget, id, { name: 'put2', sealed: false }, 'update');
    const stored = await get(id);
    assert.deepEqual(
      [stored?.name, stored?.cost, stored?.isShiny, stored?.sealed, stored?.roleAttributes, stored?.tags],
      ['put2', 0, false, true, null, {}],
    );
    assert.equal(stored?.updatedAt, '2026-03-01T12:00:01.000Z');
    assert.equal(stored?.createdAt, '2026-03-01T12:00:00.000Z');
  });

  it('PATCH writes only present non-null keys, and an empty map changes nothing', async () => {
    const id = await createEntity(deps, widget, {
      name: 'patch',
      cost: 5,
      roleAttributes: ['x'],
      tags: { a: 'b' },
      appData: { k: 1 },
    });
    await modifyEntity(deps, widget, id, { cost: null, tags: {}, appData: {}, isShiny: true }, 'patch');
    let stored = await get(id);
    assert.deepEqual(
      [stored?.cost, stored?.tags, stored?.appData, stored?.isShiny, stored?.roleAttributes],
      [5, { a: 'b' }, { k: 1 }, true, ['x']],
    );
    await modifyEntity(deps, widget, id, { roleAttributes: [], tags: { c: true } }, 'patch');
    stored = await get(id);
    assert.deepEqual([stored?.roleAttributes, stored?.tags], [null, { c: true }]);
  });

  it('refuses nested tags with a 400, not a 500', async () => {
    await expectField(createEntity(deps, widget, { name: 'nested', tags: { a: { b: 1 } } }), 'tags.a', /nested maps/);
    await expectField(createEntity(deps, widget, { name: 'nested', tags: { a: [1] } }), 'tags.a', /nested lists/);
  });

  it('runs validate and afterWrite inside the transaction: a failing hook leaves nothing written', async () => {
    calls.length = 0;
    await expectField(createEntity(deps, widget, { name: 'unlucky', cost: 13 }), 'cost');
    await assert.rejects(
      createEntity(deps, widget, { name: 'explode', roleAttributes: ['boom'] }),
      /side effect failed/,
    );
    assert.deepEqual(calls, ['validate create', 'validate create', 'afterWrite create']);
    const rows = await store.read((db) => selectMatching(db, widget.table, { name: ['unlucky', 'explode'] }, ['name']));
    assert.deepEqual(rows, []);
    const sets = await store.read((db) => selectMatching(db, widgetRoles, { value: 'boom' }));
    assert.deepEqual(sets, []);
  });

  it("creates inside a caller's transaction with the same rules, and rolls back with it", async () => {
    calls.length = 0;
    let id = '';
    await assert.rejects(
      store.transaction(async (tx) => {
        id = await createEntityIn(tx, deps, widget, { name: 'inner', roleAttributes: ['inner-set'] });
        assert.equal((await findEntity(tx, widget, id))?.name, 'inner', 'visible inside the transaction');
        throw new Error("the caller's later work failed");
      }),
      /later work failed/,
    );
    assert.deepEqual(calls, ['validate create', 'afterWrite create']);
    assert.equal(await get(id), undefined);
    const sets = await store.read((db) => selectMatching(db, widgetRoles, { value: 'inner-set' }));
    assert.deepEqual(sets, []);
  });

  it("maps a constraint error inside a caller's transaction to the field, leaving the transaction usable", async () => {
    await createEntity(deps, widget, { name: 'taken' });
    const kept = await store.transaction(async (tx) => {
      await expectField(createEntityIn(tx, deps, widget, { name: 'taken' }), 'name', /must be unique/);
      await expectField(createEntityIn(tx, deps, widget, { name: 'unwanted', cost: 13 }), 'cost', /unlucky/);
      return createEntityIn(tx, deps, widget, { name: 'kept' }, { id: 'chosen-id' });
    });
    assert.equal(kept, 'chosen-id');
    assert.equal((await get('chosen-id'))?.name, 'kept');
  });

  it('answers NOT_FOUND with upstream cause for a missing id on update, patch and delete', async () => {
    for (const work of [
      modifyEntity(deps, widget, 'nope', { name: 'x' }, 'update'),
      modifyEntity(deps, widget, 'nope', {}, 'patch'),
      removeEntity(deps, widget, 'nope'),
    ]) {
      await assert.rejects(work, (error: unknown) => {
        assert.ok(error instanceof ApiError);
        assert.equal(error.code, 'NOT_FOUND');
        assert.deepEqual(error.cause, { code: 'UNHANDLED', message: 'widget with id nope not found' });
        return true;
      });
    }
  });

  it('deletes the entity and its set rows', async () => {
    const id = await createEntity(deps, widget, { name: 'doomed', roleAttributes: ['gone'] });
    await removeEntity(deps, widget, id);
    assert.equal(await get(id), undefined);
    const sets = await store.read((db) => selectMatching(db, widgetRoles, { entity_id: id }));
    assert.deepEqual(sets, []);
  });

  it("finds and deletes an id only within a scope (the caller's own): one outside it is NOT_FOUND and stays", async () => {
    const mine = await createEntity(deps, widget, { name: 'mine', serial: 'owner-a' });
    const theirs = await createEntity(deps, widget, { name: 'theirs', serial: 'owner-b' });
    const own = fieldIs(widget, 'serial', 'owner-a');
    assert.equal((await store.read((db) => requireEntity(db, widget, mine, own))).name, 'mine');
    await assert.rejects(
      store.read((db) => requireEntity(db, widget, theirs, own)),
      (error: unknown) => error instanceof ApiError && error.code === 'NOT_FOUND',
    );
    await assert.rejects(
      removeEntity(deps, widget, theirs, () => Promise.resolve(own)),
      (error: unknown) => error instanceof ApiError && error.code === 'NOT_FOUND',
    );
    assert.equal((await get(theirs))?.name, 'theirs');
    await removeEntity(deps, widget, mine, () => Promise.resolve(own));
    assert.equal(await get(mine), undefined);
    assert.throws(() => fieldIs(widget, 'owner', 'x'), /widget has no field owner/);
  });

  it('lists through the filter compiler with its symbols, sorting and paging', async () => {
    for (const [name, cost, attrs] of [
      ['l1', 3, ['red']],
      ['l2', 1, ['blue', 'red']],
      ['l3', 2, []],
    ] as const) {
      await createEntity(deps, widget, { name, cost, roleAttributes: attrs });
    }
    const query = compileSqlite(
      { filter: 'name contains "l" and anyOf(roleAttributes) = "red" sort by cost desc' },
      { alias: 't', symbols: widget.symbols },
    );
    const page = await store.read((db) => listEntities(db, widget, query));
    assert.deepEqual(
      page.rows.map((r) => r.name),
      ['l1', 'l2'],
    );
    assert.equal(page.totalCount, 2);
    const paged = compileSqlite(
      { filter: 'name contains "l" sort by name', limit: 1, offset: 1 },
      { alias: 't', symbols: widget.symbols },
    );
    const second = await store.read((db) => listEntities(db, widget, paged));
    assert.deepEqual(
      second.rows.map((r) => r.name),
      ['l2'],
    );
    assert.ok(second.totalCount >= 3);
  });

  it('derives the filterable fields and links from the definition', () => {
    assert.deepEqual(widget.filterableFields, [
      'id',
      'createdAt',
      'updatedAt',
      'tags',
      'isSystem',
      'name',
      'serial',
      'cost',
      'isShiny',
      'sealed',
      'roleAttributes',
    ]);
    assert.deepEqual(widget.links({ id: 'w1' }), {
      self: { href: './widgets/w1' },
      parts: { href: './widgets/w1/parts' },
    });
  });
});
