import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkFilter } from './check-filter.js';
import { ITEM_SYMBOLS } from './filter-test-fixture.js';
import { FilterError } from './filter-types.js';
import { numberAsText } from './literals.js';
import { parseFilter } from './parse-filter.js';

function checkMessage(filter: string): string {
  try {
    checkFilter(parseFilter(filter), ITEM_SYMBOLS);
  } catch (error) {
    assert.ok(error instanceof FilterError, `expected a FilterError, got ${String(error)}`);
    assert.equal(error.kind, 'filter');
    return error.message;
  }
  return assert.fail(`${filter} was accepted`);
}

function expectMessages(cases: Array<[filter: string, message: string]>): void {
  for (const [filter, message] of cases) {
    it(`${filter} → ${message}`, () => {
      assert.equal(checkMessage(filter), message);
    });
  }
}

describe('unknown or non-public symbols', () => {
  expectMessages([
    ['nope = 1', "unknown symbol 'nope'"],
    ['identity.name = "x"', "unknown symbol 'identity.name'"],
    ["'name' = 1 or true", "unknown symbol ''name''"],
    ['constructor = 1', "unknown symbol 'constructor'"],
    ['toString', "unknown symbol 'toString'"],
    ['roleAttributes.x = "a"', "unknown symbol 'roleAttributes.x'"],
    ['anyOf(nope) = "a"', "unknown symbol 'nope'"],
    ['true sort by nope', "unknown symbol 'nope'"],
    // Symbols are validated before types, as upstream does.
    ['isAdmin = "x" and nope = 1', "unknown symbol 'nope'"],
  ]);
});

describe('set symbols outside a set function', () => {
  expectMessages([
    ['roleAttributes = "x"', "symbol 'roleAttributes' is a set symbol but is used in non-set function context"],
    ['roleAttributes', "symbol 'roleAttributes' is a set symbol but is used in non-set function context"],
    ['true sort by roleAttributes', "symbol 'roleAttributes' is a set symbol but is used in non-set function context"],
  ]);
});

describe('set functions on non-set symbols', () => {
  expectMessages([
    ['anyOf(name) = "x"', "symbol 'name' is not a set symbol but is used in set function anyOf"],
    ['ALLOF(name) = "x"', "symbol 'name' is not a set symbol but is used in set function allOf"],
    ['count(cost) > 1', "symbol 'cost' is not a set symbol but is used in set function count"],
    ['isEmpty(name)', "symbol 'name' is not a set symbol but is used in set function isEmpty"],
    ['anyOf(tags.x) = 1', "symbol 'tags.x' is not a set symbol but is used in set function anyOf"],
  ]);
});

describe('type mismatches', () => {
  expectMessages([
    ['isAdmin = "x"', 'operation isAdmin = x is not supported with operands types bool, string'],
    ['isAdmin > 1', 'operation isAdmin > 1 is not supported with operands types bool, number'],
    ['createdAt > "2024"', 'operation createdAt > 2024 is not supported with operands types date, string'],
    ['cost = "5"', 'operation cost = 5 is not supported with operands types number, string'],
    ['cost = true', 'operation cost = true is not supported with operands types number, bool'],
    ['name = true', 'operation name = true is not supported with operands types string, bool'],
    [
      'name = datetime(2024-01-01T00:00:00Z)',
      'operation name = 2024-01-01 00:00:00 +0000 UTC is not supported with operands types string, date',
    ],
    [
      'cost < datetime(2024-01-01T00:00:00.50+02:00)',
      'operation cost < 2024-01-01 00:00:00.5 +0200 +0200 is not supported with operands types number, date',
    ],
    ['name', 'operation name = true is not supported with operands types string, bool'],
    ['name between 1 and 2', 'operation name between 1 and 2 is not supported with operands types string, number'],
    [
      'cost not between datetime(2024-01-01T00:00:00Z) and datetime(2024-01-02T00:00:00Z)',
      'operation cost not between 2024-01-01 00:00:00 +0000 UTC and 2024-01-02 00:00:00 +0000 UTC is not supported with operands types number, date',
    ],
    ['isAdmin contains "x"', 'operation isAdmin contains x is not supported with operands types bool, string'],
    [
      'createdAt not icontains "x"',
      'operation createdAt not icontains x is not supported with operands types date, string',
    ],
    ['createdAt in ["a", "b"]', 'operation createdAt in [a, b] is not supported with operands types date, string'],
    ['cost not in ["a"]', 'operation cost not in [a] is not supported with operands types number, string'],
    ['isAdmin in [1]', 'operation isAdmin in [1] is not supported with operands types bool, number'],
    [
      'anyOf(roleAttributes) = true',
      'operation roleAttributes = true is not supported with operands types string, bool',
    ],
    [
      'anyOf(roleAttributes) = null',
      'operation roleAttributes = null is not supported with operands types string, other',
    ],
    [
      'count(roleAttributes) = "x"',
      'operation count(roleAttributes) = x is not supported with operands types number, string',
    ],
    [
      'count(roleAttributes) != null',
      'operation count(roleAttributes) != null is not supported with operands types number, other',
    ],
    ['tags = "x"', 'operation tags = x is not supported with operands types other, string'],
    ['tags', 'operation tags = true is not supported with operands types other, bool'],
  ]);
});

describe('sub-queries and unsortable symbols', () => {
  expectMessages([
    [
      'count(from roleAttributes where true) > 1',
      'sub-queries are not supported: use count(roleAttributes) instead of count(from roleAttributes where ...)',
    ],
    [
      'isEmpty(from roleAttributes where name = "x")',
      'sub-queries are not supported: use isEmpty(roleAttributes) instead of isEmpty(from roleAttributes where ...)',
    ],
    ['isEmpty(from name where true)', "symbol 'name' is not a set symbol but is used in set function isEmpty"],
    ['true sort by tags.env', 'no such sort field: tags.env'],
    ['true sort by tags', 'no such sort field: tags'],
  ]);
});

describe('checkFilter results', () => {
  it('compares a string field with the text form of a number', () => {
    const { predicate } = checkFilter(parseFilter('name = 1e21'), ITEM_SYMBOLS);
    assert.deepEqual(predicate, {
      kind: 'test',
      subject: { kind: 'column', column: 'name' },
      test: { kind: 'compare', op: '=', value: '1000000000000000000000' },
    });
  });

  it('writes numbers in plain decimal notation, as Go does', () => {
    assert.deepEqual([1.5e-7, -2.5e22, 10.5, -0.001, 12].map(numberAsText), [
      '0.00000015',
      '-25000000000000000000000',
      '10.5',
      '-0.001',
      '12',
    ]);
  });

  it('maps sort fields to columns', () => {
    const { sort } = checkFilter(parseFilter('sort by createdAt desc, isAdmin'), ITEM_SYMBOLS);
    assert.deepEqual(sort, [
      { column: 'created_at', ascending: false },
      { column: 'is_admin', ascending: true },
    ]);
  });
});
