import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ALL_IDS, createItemsFixture, matchingIds, type ItemsFixture } from './filter-test-fixture.js';

// The fixture is only read, so one database serves the whole file.
let fixture: ItemsFixture;
before(async () => {
  fixture = await createItemsFixture();
});
after(async () => {
  await fixture.close();
});

/** Each case: filter → ids it must match (rows: a alpha, b Beta, c gamma ray, d NULL name, e delta"quote, f "5"). */
function expectMatches(cases: Array<[filter: string, ids: string[]]>): void {
  for (const [filter, ids] of cases) {
    it(`${filter} → [${ids.join(', ')}]`, async () => {
      assert.deepEqual(await matchingIds(fixture, filter), ids);
    });
  }
}

describe('string comparisons (byte-wise, case-sensitive, NULL never matches)', () => {
  expectMatches([
    ['name = "alpha"', ['a']],
    ['name != "alpha"', ['b', 'c', 'e', 'f']],
    ['name < "b"', ['a', 'b', 'f']],
    ['name <= "alpha"', ['a', 'b', 'f']],
    ['name > "alpha"', ['c', 'e']],
    ['name >= "delta"', ['c', 'e']],
    ['name = "ALPHA"', []],
    ['name = "delta\\"quote"', ['e']],
    ['name="alpha"', ['a']],
    ['name = 5', ['f']],
    ['name < 6', ['f']],
  ]);
});

describe('contains / icontains', () => {
  expectMatches([
    ['name contains "a"', ['a', 'b', 'c', 'e']],
    ['name contains "A"', []],
    ['name contains ""', ['a', 'b', 'c', 'e', 'f']],
    ['name contains 5', ['f']],
    ['name not contains "a"', ['d', 'f']],
    ['name NOT   CONTAINS "a"', ['d', 'f']],
    ['name icontains "BETA"', ['b']],
    ['name icontains "A"', ['a', 'b', 'c', 'e']],
    ['name not icontains "ALPHA"', ['b', 'c', 'd', 'e', 'f']],
    ['cost contains 5', ['a', 'b', 'f']],
    ['cost contains "0.5"', ['b']],
    ['cost not contains 5', ['c', 'd', 'e']],
    ['cost icontains "0"', ['b', 'd', 'f']],
  ]);
});

describe('in / not in', () => {
  expectMatches([
    ['name in ["alpha", "Beta"]', ['a', 'b']],
    ['name not in ["alpha", "Beta"]', ['c', 'd', 'e', 'f']],
    ['name in [5, 6]', ['f']],
    ['name in [ "alpha" ]', ['a']],
    ['cost in [0, 50]', ['d', 'f']],
    ['cost in [5.0, 10.5]', ['a', 'b']],
    ['cost not in [0, 50]', ['a', 'b', 'c', 'e']],
  ]);
});

describe('number comparisons', () => {
  expectMatches([
    ['cost = 5', ['a']],
    ['cost = 5.0', ['a']],
    ['cost = 1.05e1', ['b']],
    ['cost != 5', ['b', 'd', 'e', 'f']],
    ['cost < 5', ['d', 'e']],
    ['cost <= 5', ['a', 'd', 'e']],
    ['cost > 5', ['b', 'f']],
    ['cost >= 10.5', ['b', 'f']],
    ['cost = -2', ['e']],
    ['cost > -2.5', ['a', 'b', 'd', 'e', 'f']],
  ]);
});

describe('between (half-open) / not between', () => {
  expectMatches([
    ['cost between 0 and 10.5', ['a', 'd']],
    ['cost not between 0 and 10.5', ['b', 'c', 'e', 'f']],
    ['cost between -2 and 0', ['e']],
    ['createdAt between datetime(2024-01-01T00:00:00Z) and datetime(2024-02-01T00:00:00Z)', ['a', 'c']],
    ['createdAt not between datetime(2024-01-01T00:00:00Z) and datetime(2024-02-01T00:00:00Z)', ['b', 'd', 'e', 'f']],
    ['createdAt between datetime(2024-03-01T12:00:00.1225Z) and datetime(2024-03-01T12:00:00.1231Z)', ['f']],
    ['createdAt between datetime(2024-03-01T12:00:00.1231Z) and datetime(2024-03-02T00:00:00Z)', []],
  ]);
});

describe('bool symbols (a missing bool counts as false)', () => {
  expectMatches([
    ['isAdmin', ['a', 'd']],
    ['isAdmin = true', ['a', 'd']],
    ['isAdmin != false', ['a', 'd']],
    ['isAdmin = TRUE', ['a', 'd']],
    ['isAdmin = false', ['b', 'c', 'e', 'f']],
    ['isAdmin != true', ['b', 'c', 'e', 'f']],
    ['not isAdmin', ['b', 'c', 'e', 'f']],
    ['not (isAdmin)', ['b', 'c', 'e', 'f']],
    ['not not isAdmin', ['a', 'd']],
    ['isAdmin = null', ['c']],
    ['isAdmin != null', ['a', 'b', 'd', 'e', 'f']],
  ]);
});

describe('datetimes (normalised to UTC, millisecond precision)', () => {
  expectMatches([
    ['createdAt = datetime(2024-01-10T10:00:00Z)', ['a']],
    ['createdAt = datetime(2024-01-10T12:00:00+02:00)', ['a']],
    ['createdAt = datetime(2024-01-10T05:30:00-04:30)', ['a']],
    ['createdAt = datetime(2024-01-10t10:00:00z)', ['a']],
    ['createdAt = datetime( 2024-01-10T10:00:00.000000Z )', ['a']],
    ['createdAt < datetime(2024-01-01T00:00:00Z)', ['e']],
    ['createdAt <= datetime(2024-01-01T00:00:00+01:00)', ['e']],
    ['createdAt < datetime(2024-01-01T00:00:00+01:00)', []],
    ['createdAt >= datetime(2024-01-01T00:00:00Z) and createdAt < datetime(2024-02-01T00:00:00Z)', ['a', 'c']],
    ['createdAt > datetime(2024-01-31T23:59:59.998Z)', ['b', 'c', 'f']],
    ['createdAt = datetime(2024-03-01T12:00:00.123Z)', ['f']],
    ['createdAt = datetime(2024-03-01T12:00:00.12Z)', []],
    ['createdAt = datetime(2024-03-01T12:00:00.1230000Z)', ['f']],
    ['createdAt = datetime(2024-03-01T12:00:00.12345Z)', []],
    ['createdAt != datetime(2024-03-01T12:00:00.12345Z)', ['a', 'b', 'c', 'e', 'f']],
    ['createdAt < datetime(2024-03-01T12:00:00.1231Z)', ['a', 'b', 'c', 'e', 'f']],
    ['createdAt <= datetime(2024-03-01T12:00:00.1229Z)', ['a', 'b', 'c', 'e']],
    ['createdAt > datetime(2024-03-01T12:00:00.1229Z)', ['f']],
    ['createdAt >= datetime(2024-03-01T12:00:00.1229Z)', ['f']],
    ['createdAt >= datetime(2024-03-01T12:00:00.1231Z)', []],
    ['createdAt in [datetime(2024-01-10T10:00:00Z), datetime(2024-02-01T01:00:00+01:00)]', ['a', 'b']],
    ['createdAt not in [datetime(2024-01-10T10:00:00Z), datetime(2024-02-01T01:00:00+01:00)]', ['c', 'd', 'e', 'f']],
    ['createdAt in [datetime(2024-01-10T10:00:00.0001Z)]', []],
    ['createdAt not in [datetime(2024-01-10T10:00:00.0001Z)]', ALL_IDS],
    ['createdAt = null', ['d']],
  ]);
});

describe('null tests', () => {
  expectMatches([
    ['name = null', ['d']],
    ['name != null', ['a', 'b', 'c', 'e', 'f']],
    ['name = NULL', ['d']],
    ['cost = null', ['c']],
  ]);
});

describe('set functions', () => {
  expectMatches([
    ['anyOf(roleAttributes) = "sales"', ['a', 'e']],
    ['ANYOF(roleAttributes) = "eng"', ['a', 'b']],
    ['anyOf( roleAttributes ) = "eng"', ['a', 'b']],
    ['anyOf(roleAttributes) != "sales"', ['a', 'b', 'd', 'f']],
    ['anyOf(roleAttributes) < "f"', ['a', 'b', 'f']],
    ['anyOf(roleAttributes) in ["eng", "legacy"]', ['a', 'b', 'd', 'f']],
    ['anyOf(roleAttributes) not in ["sales"]', ['a', 'b', 'd', 'f']],
    ['anyOf(roleAttributes) contains "ale"', ['a', 'e', 'f']],
    ['anyOf(roleAttributes) icontains "SALES"', ['a', 'e', 'f']],
    ['allOf(roleAttributes) != "legacy"', ['a', 'b', 'c', 'e']],
    ['allOf(roleAttributes) = "eng"', ['b', 'c']],
    ['allOf(roleAttributes) in ["sales", "eng"]', ['a', 'b', 'c', 'e']],
    ['allOf(roleAttributes) not contains "a"', ['b', 'c']],
    ['count(roleAttributes) = 0', ['c']],
    ['count(roleAttributes) >= 2', ['a', 'f']],
    ['count(roleAttributes) between 1 and 2', ['b', 'd', 'e']],
    ['count(roleAttributes) in [0, 2]', ['a', 'c', 'f']],
    ['count( roleAttributes ) < 1', ['c']],
    ['isEmpty(roleAttributes)', ['c']],
    ['ISEMPTY(roleAttributes)', ['c']],
    ['not isEmpty(roleAttributes)', ['a', 'b', 'd', 'e', 'f']],
    ['not (isEmpty(roleAttributes))', ['a', 'b', 'd', 'e', 'f']],
    ['(name contains "prod") or (anyOf(roleAttributes) = "legacy")', ['d', 'f']],
  ]);
});

describe('tags (map symbol; the type follows the literal)', () => {
  expectMatches([
    ['tags.env = "prod"', ['a']],
    ['tags.env != "prod"', ['b']],
    ['tags.env = null', ['c', 'd', 'e', 'f']],
    ['tags.env != null', ['a', 'b']],
    ['tags.n = 3', ['a']],
    ['tags.n = "3"', ['b']],
    ['tags.n > 2', ['a', 'e']],
    ['tags.n between 3 and 11', ['a', 'e']],
    ['tags.n in [3, 4]', ['a']],
    ['tags.n not in [3]', ['b', 'c', 'd', 'e', 'f']],
    ['tags.n contains "1"', []],
    ['tags.flag = true', ['a']],
    ['tags.flag', ['a']],
    ['tags.flag = false', ['b', 'c', 'd', 'e', 'f']],
    ['tags.flag != true', ['b', 'c', 'd', 'e', 'f']],
    ['tags.flag = "true"', ['e']],
    ['tags.nested.deep = "x"', ['a']],
    ['tags.owner contains "o"', ['d']],
    ['tags.owner icontains "BO"', ['d']],
    ['tags.owner not contains "o"', ['a', 'b', 'c', 'e', 'f']],
    ['tags.when = datetime(2024-01-01T01:00:00+01:00)', ['a']],
    ['tags.limit = "x"', []],
    ['tags.missing = null', ALL_IDS],
    ['tags.env = "prod" and tags.owner != null', []],
  ]);
});

describe('boolean logic', () => {
  expectMatches([
    ['true', ALL_IDS],
    ['TRUE', ALL_IDS],
    ['false', []],
    ['name = "alpha" or cost = 0', ['a', 'd']],
    ['name = "alpha" and cost = 5', ['a']],
    ['name = "alpha" AND cost = 6', []],
    // `and` binds tighter than `or`: cost = 0 or (name = "alpha" and cost = 99).
    ['cost = 0 or name = "alpha" and cost = 99', ['d']],
    // `not` applies to the primary after it: (not name = "alpha") and cost = 0.
    ['not name = "alpha" and cost = 0', ['d']],
    ['not (name = "alpha" and cost = 0)', ALL_IDS],
    // A test that is false because the value is absent becomes true under `not`.
    ['not (name = "alpha")', ['b', 'c', 'd', 'e', 'f']],
    ['not (name != "alpha")', ['a', 'd']],
    ['((name = "alpha") or (cost = 0))', ['a', 'd']],
    ['( name = "alpha" )', ['a']],
    ['isAdmin and (cost > 1 or name = null)', ['a', 'd']],
  ]);
});

describe('whitespace and empty filters', () => {
  expectMatches([
    ['', ALL_IDS],
    ['   ', ALL_IDS],
    ['  name = "alpha"  ', ['a']],
    ['(name contains "")', ['a', 'b', 'c', 'e', 'f']],
    [' (name contains "")', ['a', 'b', 'c', 'e', 'f']],
    ['name = "alpha"\n\tor\r\ncost = 0', ['a', 'd']],
  ]);
});

describe('long filters', () => {
  it('runs a chain of 3000 or-terms within SQLite expression depth limits', async () => {
    const filter = Array.from({ length: 3000 }, (_, index) => `cost = ${index + 100}`).join(' or ') + ' or cost = 0';
    assert.deepEqual(await matchingIds(fixture, filter), ['d']);
  });

  it('runs a chain of 3000 and-terms', async () => {
    const filter = Array.from({ length: 3000 }, () => 'isAdmin').join(' and ');
    assert.deepEqual(await matchingIds(fixture, filter), ['a', 'd']);
  });
});
