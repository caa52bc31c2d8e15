import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  ALL_IDS,
  ITEM_SYMBOLS,
  compileSqlite,
  createItemsFixture,
  fixtureDatabaseUrl,
  listIds,
  selectIds,
  type ItemsFixture,
} from './filter-test-fixture.js';
import { FilterError } from './filter-types.js';
import type { ListParams } from './list-query.js';

let fixture: ItemsFixture;
before(async () => {
  fixture = await createItemsFixture();
});
after(async () => {
  await fixture.close();
});

function page(params: ListParams): { limit: number | 'none'; offset: number } {
  const { limit, offset } = compileSqlite(params, { alias: 't', symbols: ITEM_SYMBOLS });
  return { limit, offset };
}

function thrown(params: ListParams): FilterError {
  try {
    compileSqlite(params, { alias: 't', symbols: ITEM_SYMBOLS });
  } catch (error) {
    assert.ok(error instanceof FilterError);
    return error;
  }
  return assert.fail('the list query was accepted');
}

describe('sorting', () => {
  // Names: a alpha, b Beta, c gamma ray, d NULL, e delta"quote, f 5; isAdmin: a 1, b 0, c NULL, d 1, e 0, f 0.
  const cases: Array<[params: ListParams, ids: string[]]> = [
    [{ filter: 'true sort by name' }, ['d', 'f', 'b', 'a', 'e', 'c']],
    [{ filter: 'sort by name DESC' }, ['c', 'e', 'a', 'b', 'f', 'd']],
    [{ filter: 'sort by isAdmin' }, ['c', 'b', 'e', 'f', 'a', 'd']],
    [{ filter: 'sort by isAdmin desc' }, ['a', 'd', 'b', 'e', 'f', 'c']],
    [{ filter: 'sort by isAdmin, name' }, ['c', 'f', 'b', 'e', 'd', 'a']],
    [{ filter: 'sort by createdAt' }, ['d', 'e', 'a', 'c', 'b', 'f']],
    [{ filter: 'cost >= 0 sort by cost desc' }, ['f', 'b', 'a', 'd']],
    [{ filter: '' }, ALL_IDS],
    [{ sort: 'name desc' }, ['c', 'e', 'a', 'b', 'f', 'd']],
    [{ sort: 'isAdmin desc, name asc' }, ['d', 'a', 'f', 'b', 'e', 'c']],
    // The filter's own sort clause wins over the sort parameter.
    [{ filter: 'true sort by name', sort: 'name desc' }, ['d', 'f', 'b', 'a', 'e', 'c']],
  ];
  for (const [params, ids] of cases) {
    it(`${JSON.stringify(params)} → [${ids.join(', ')}]`, async () => {
      assert.deepEqual(await listIds(fixture, params), ids);
    });
  }

  it('keeps at most five sort fields and always ends with id ASC', () => {
    const filter = 'sort by name, cost, isAdmin, createdAt, id, name desc';
    const { orderBy } = compileSqlite({ filter }, { alias: 't', symbols: ITEM_SYMBOLS });
    const compiled = orderBy.map((item) => item.compile(fixture.db).sql);
    assert.deepEqual(compiled, [
      '"t"."name" ASC NULLS FIRST',
      '"t"."cost" ASC NULLS FIRST',
      '"t"."is_admin" ASC NULLS FIRST',
      '"t"."created_at" ASC NULLS FIRST',
      '"t"."id" ASC NULLS FIRST',
      '"t"."id" ASC',
    ]);
  });

  it('uses the idColumn of the target as tie-breaker', () => {
    const { orderBy } = compileSqlite({}, { alias: 'x', idColumn: 'key', symbols: ITEM_SYMBOLS });
    assert.deepEqual(
      orderBy.map((item) => item.compile(fixture.db).sql),
      ['"x"."key" ASC'],
    );
  });
});

describe('skip and limit', () => {
  const cases: Array<[params: ListParams, ids: string[]]> = [
    [{ filter: 'sort by cost skip 1 limit 2' }, ['e', 'd']],
    [{ filter: 'skip 4' }, ['e', 'f']],
    [{ filter: 'limit 2' }, ['a', 'b']],
    [{ filter: 'limit none' }, ALL_IDS],
    [{ limit: 2, offset: 1 }, ['b', 'c']],
    [{ filter: 'limit 3', limit: 1, offset: 1 }, ['b', 'c', 'd']],
    [{ filter: 'skip 5', limit: 1, offset: 0 }, ['f']],
    [{ filter: 'isAdmin = false limit 1', offset: 2 }, ['e']],
  ];
  for (const [params, ids] of cases) {
    it(`${JSON.stringify(params)} → [${ids.join(', ')}]`, async () => {
      assert.deepEqual(await listIds(fixture, params), ids);
    });
  }
});

describe('limit and offset normalisation (docs/reference/http-conventions.md §4.2)', () => {
  const cases: Array<[params: ListParams, expected: { limit: number | 'none'; offset: number }]> = [
    [{}, { limit: 10, offset: 0 }],
    [{ limit: 25 }, { limit: 25, offset: 0 }],
    [{ limit: 0 }, { limit: 10, offset: 0 }],
    [{ limit: -1 }, { limit: 'none', offset: 0 }],
    [{ limit: -2 }, { limit: 10, offset: 0 }],
    [{ limit: 500 }, { limit: 500, offset: 0 }],
    [{ limit: 501 }, { limit: 500, offset: 0 }],
    [{ offset: 3 }, { limit: 10, offset: 3 }],
    [{ offset: -3 }, { limit: 10, offset: 0 }],
    [{ offset: 100_000 }, { limit: 10, offset: 100_000 }],
    [{ offset: 100_001 }, { limit: 10, offset: 100_000 }],
    [{ filter: 'limit 1000' }, { limit: 500, offset: 0 }],
    [{ filter: 'limit 0' }, { limit: 10, offset: 0 }],
    [{ filter: 'limit -5' }, { limit: 10, offset: 0 }],
    [{ filter: 'limit -1' }, { limit: 'none', offset: 0 }],
    [
      { filter: 'LIMIT NONE', limit: 5 },
      { limit: 'none', offset: 0 },
    ],
    [{ filter: 'skip 200000' }, { limit: 10, offset: 100_000 }],
    [{ filter: 'skip -4' }, { limit: 10, offset: 0 }],
    // Clauses in the filter win over the parameters; a missing clause takes the parameter.
    [
      { filter: 'skip 2 limit 3', limit: 7, offset: 9 },
      { limit: 3, offset: 2 },
    ],
    [
      { filter: 'skip 2', limit: 7, offset: 9 },
      { limit: 7, offset: 2 },
    ],
    [
      { filter: 'limit 3', offset: 9 },
      { limit: 3, offset: 9 },
    ],
    [
      { filter: 'skip 2', offset: 9 },
      { limit: 10, offset: 2 },
    ],
    [
      { filter: 'limit 3', limit: 7 },
      { limit: 3, offset: 0 },
    ],
  ];
  for (const [params, expected] of cases) {
    it(`${JSON.stringify(params)} → ${JSON.stringify(expected)}`, () => {
      assert.deepEqual(page(params), expected);
    });
  }
});

describe('errors', () => {
  it('reports filter problems with kind filter', () => {
    const error = thrown({ filter: 'nope = 1' });
    assert.equal(error.kind, 'filter');
    assert.equal(error.message, "unknown symbol 'nope'");
    assert.equal(thrown({ filter: 'name = ' }).kind, 'filter');
    assert.equal(thrown({ filter: 'true sort by roleAttributes' }).kind, 'filter');
  });

  it('reports sort parameter problems with kind sort, positions counted in `true sort by <sort>`', () => {
    const syntax = thrown({ sort: 'name desc,' });
    assert.equal(syntax.kind, 'sort');
    assert.equal(
      syntax.message,
      'Unexpected symbol: "<EOF>" at line: 1 column: 23. line: 1, column: 23, symbol: <EOF>',
    );
    assert.deepEqual(
      [thrown({ sort: 'nope' }), thrown({ sort: 'roleAttributes' }), thrown({ sort: 'tags.env desc' })].map((error) => [
        error.kind,
        error.message,
      ]),
      [
        ['sort', "unknown symbol 'nope'"],
        ['sort', "symbol 'roleAttributes' is a set symbol but is used in non-set function context"],
        ['sort', 'no such sort field: tags.env'],
      ],
    );
  });

  it('reports a bad filter before looking at the sort parameter', () => {
    assert.equal(thrown({ filter: 'nope = 1', sort: 'nope' }).kind, 'filter');
  });

  it('ignores an empty sort parameter', () => {
    assert.equal(page({ sort: '' }).limit, 10);
  });
});

describe('generated SQL', () => {
  it('binds a malicious string as a parameter instead of inlining it', async () => {
    const value = `x'; DROP TABLE items; --" OR 1=1`;
    const filter = `name = ${JSON.stringify(value)} or tags.env contains ${JSON.stringify(value)}`;
    const compiled = selectIds(fixture, { filter }).compile();
    assert.ok(!compiled.sql.includes('DROP'));
    assert.ok(compiled.parameters.includes(value));
    assert.deepEqual(await listIds(fixture, { filter }), []);
    assert.equal((await listIds(fixture, { filter: 'limit none' })).length, ALL_IDS.length);
  });

  // Query plans are SQLite's: on PostgreSQL the same cases run above, and its planner scans six rows anyway.
  if (!fixtureDatabaseUrl) {
    const queryPlan = (filter: string): string[] => {
      const compiled = selectIds(fixture, { filter }).compile();
      const rows = fixture.sqlite!.prepare(`EXPLAIN QUERY PLAN ${compiled.sql}`).all(...compiled.parameters) as Array<{
        detail: string;
      }>;
      return rows.map((row) => row.detail);
    };

    it('uses the name index for name = "x"', () => {
      const plan = queryPlan('name = "x"');
      assert.ok(
        plan.some((detail) => /^SEARCH t USING (COVERING )?INDEX items_name \(name=\?\)/.test(detail)),
        plan.join('\n'),
      );
    });

    it('drives anyOf(roleAttributes) = "x" from the set index instead of scanning the set table', () => {
      const plan = queryPlan('anyOf(roleAttributes) = "x"');
      assert.ok(
        plan.some((detail) => /^SEARCH t__element USING (COVERING )?INDEX item_role_attributes_value/.test(detail)),
        plan.join('\n'),
      );
      assert.ok(!plan.some((detail) => /^SCAN t__element/.test(detail)), plan.join('\n'));
    });
  }

  it('qualifies every column with the caller alias', () => {
    const { where } = compileSqlite(
      { filter: 'name = "a" and anyOf(roleAttributes) = "b" and tags.env = "c" and count(roleAttributes) > 1' },
      { alias: 'q', idColumn: 'uid', symbols: ITEM_SYMBOLS },
    );
    const text = where.compile(fixture.db).sql;
    assert.ok(text.includes('"q"."name"') && text.includes('"q"."uid"') && text.includes('"q"."tags"'), text);
    assert.ok(!/(^|[^.])"(name|uid|tags)"/.test(text), text);
  });
});

describe('lookup columns (a related row reached through a foreign key)', () => {
  it('filters and sorts on the related column, and the lookup is an indexed primary-key probe', async () => {
    const { Kysely, SqliteDialect } = await import('kysely');
    const { default: Database } = await import('better-sqlite3');
    const raw = new Database(':memory:');
    const db = new Kysely<Record<string, Record<string, unknown>>>({ dialect: new SqliteDialect({ database: raw }) });
    raw.exec(`CREATE TABLE owners (id TEXT PRIMARY KEY, name TEXT);
      CREATE TABLE pets (id TEXT PRIMARY KEY, owner_id TEXT REFERENCES owners(id));
      INSERT INTO owners VALUES ('o1', 'zed'), ('o2', 'amy');
      INSERT INTO pets VALUES ('p1', 'o1'), ('p2', 'o2'), ('p3', 'o1');`);
    const symbols = {
      id: { kind: 'column', type: 'string', column: 'id' },
      'owner.name': {
        kind: 'column',
        type: 'string',
        column: 'name',
        via: { table: 'owners', foreignKey: 'owner_id' },
      },
    } as const;
    const run = async (filter: string) => {
      const query = compileSqlite({ filter }, { alias: 't', symbols });
      let select = db.selectFrom('pets as t').select('t.id').where(query.where);
      for (const order of query.orderBy) select = select.orderBy(order);
      return (await select.execute()).map((r) => r.id);
    };
    assert.deepEqual(await run('owner.name = "zed"'), ['p1', 'p3']);
    assert.deepEqual(await run('owner.name contains "m" or owner.name = "zed" sort by owner.name'), ['p2', 'p1', 'p3']);
    const query = compileSqlite({ filter: 'owner.name = "zed"' }, { alias: 't', symbols });
    const compiled = db.selectFrom('pets as t').select('t.id').where(query.where).compile();
    const plan = raw.prepare(`EXPLAIN QUERY PLAN ${compiled.sql}`).all(...compiled.parameters) as { detail: string }[];
    const lookup = plan.map((row) => row.detail).filter((detail) => detail.includes('t__owner_id'));
    assert.ok(
      lookup.length > 0 && lookup.every((detail) => /USING (INTEGER PRIMARY KEY|(COVERING )?INDEX)/.test(detail)),
      JSON.stringify(plan),
    );
    await db.destroy();
  });
});
