import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FilterError, type Predicate } from './filter-types.js';
import { parseFilter } from './parse-filter.js';
import { MAX_NESTING } from './token-cursor.js';
import { tokenize } from './tokenize.js';

function predicateOf(filter: string): Predicate {
  return parseFilter(filter).predicate;
}

const symbolEquals = (name: string, value: number): Predicate => ({
  kind: 'compare',
  lhs: { kind: 'symbol', name },
  op: '=',
  value: { kind: 'number', value },
});

function syntaxMessage(symbol: string, line: number, column: number): string {
  return `Unexpected symbol: "${symbol}" at line: ${line} column: ${column}. line: ${line}, column: ${column}, symbol: ${symbol}`;
}

function assertSyntaxError(filter: string, symbol: string, line: number, column: number): void {
  assert.throws(
    () => parseFilter(filter),
    (error: unknown) => {
      assert.ok(error instanceof FilterError);
      assert.equal(error.kind, 'filter');
      assert.equal(error.message, syntaxMessage(symbol, line, column));
      return true;
    },
  );
}

describe('tokenize', () => {
  it('matches keywords case-insensitively but prefers a longer identifier', () => {
    const kinds = tokenize('LIMIT limits tags.limit Sort')
      .filter((token) => token.kind !== 'ws')
      .map((token) => `${token.kind}:${token.text}`);
    assert.deepEqual(kinds, ['limit:LIMIT', 'identifier:limits', 'identifier:tags.limit', 'sort:Sort', 'eof:<EOF>']);
  });

  it('reads `not in` with exactly one whitespace character as one token', () => {
    assert.equal(tokenize('not in')[0]?.kind, 'in');
    assert.equal(tokenize('not  in')[0]?.kind, 'not');
    assert.equal(tokenize('not \t contains')[0]?.kind, 'contains');
  });

  it('accepts `datetime(` only in lower case', () => {
    assert.equal(tokenize('datetime(2024-01-01T00:00:00Z)')[0]?.kind, 'datetime');
    assert.equal(tokenize('Datetime(2024-01-01T00:00:00Z)')[0]?.kind, 'identifier');
  });

  it('reports 1-based lines and 0-based columns', () => {
    const eof = tokenize('a\n  b').at(-1);
    assert.deepEqual(eof && [eof.line, eof.column], [2, 3]);
  });
});

describe('parseFilter: structure', () => {
  it('treats an empty or blank filter as true', () => {
    assert.deepEqual(parseFilter(''), { predicate: { kind: 'constant', value: true } });
    assert.deepEqual(parseFilter(' \n\t'), { predicate: { kind: 'constant', value: true } });
  });

  it('binds and tighter than or', () => {
    assert.deepEqual(predicateOf('a = 1 or b = 2 and c = 3'), {
      kind: 'or',
      operands: [symbolEquals('a', 1), { kind: 'and', operands: [symbolEquals('b', 2), symbolEquals('c', 3)] }],
    });
  });

  it('applies not to the following primary only', () => {
    assert.deepEqual(predicateOf('not a = 1 and b = 2'), {
      kind: 'and',
      operands: [{ kind: 'not', operand: symbolEquals('a', 1) }, symbolEquals('b', 2)],
    });
    assert.deepEqual(predicateOf('not (a = 1 and b = 2)'), {
      kind: 'not',
      operand: { kind: 'and', operands: [symbolEquals('a', 1), symbolEquals('b', 2)] },
    });
  });

  it('reads sort, skip and limit clauses in that order, with or without a predicate', () => {
    assert.deepEqual(parseFilter('true sort by name desc, createdAt ASC, id skip 20 limit 10'), {
      predicate: { kind: 'constant', value: true },
      sort: [
        { name: 'name', ascending: false },
        { name: 'createdAt', ascending: true },
        { name: 'id', ascending: true },
      ],
      skip: 20,
      limit: 10,
    });
    assert.deepEqual(parseFilter('sort by name limit 5'), {
      predicate: { kind: 'constant', value: true },
      sort: [{ name: 'name', ascending: true }],
      limit: 5,
    });
    assert.deepEqual(parseFilter('skip 10 limit 5').skip, 10);
    assert.deepEqual(parseFilter('LIMIT NONE').limit, -1);
    assert.deepEqual(parseFilter('name = 1 limit -1').limit, -1);
  });

  it('parses set functions and sub-queries', () => {
    assert.deepEqual(predicateOf('allOf(roleAttributes) != "x"'), {
      kind: 'compare',
      lhs: { kind: 'quantified', quantifier: 'allOf', name: 'roleAttributes' },
      op: '!=',
      value: { kind: 'string', value: 'x' },
    });
    assert.deepEqual(predicateOf('isEmpty(from services where name = 1 limit 2)'), {
      kind: 'isEmpty',
      set: { symbol: 'services', subquery: { predicate: symbolEquals('name', 1), limit: 2 } },
    });
    assert.equal(predicateOf('count(from services where true) > 1').kind, 'compare');
  });

  it('parses negated operators', () => {
    const kinds = ['a not in [1]', 'a not between 1 and 2', 'a not contains "x"', 'a not icontains "x"'].map(
      (filter) => {
        const predicate = predicateOf(filter);
        return 'negated' in predicate && predicate.negated;
      },
    );
    assert.deepEqual(kinds, [true, true, true, true]);
  });
});

describe('parseFilter: literals', () => {
  it('unescapes strings in one pass (a\\\\n is backslash + n, not a newline)', () => {
    const values = ['"a\\\\n"', '"q\\"q"', '"\\t\\f\\r\\n"', '"ünï €"'].map((text) => {
      const predicate = predicateOf(`name = ${text}`);
      return predicate.kind === 'compare' && predicate.value.kind === 'string' ? predicate.value.value : undefined;
    });
    assert.deepEqual(values, ['a\\n', 'q"q', '\t\f\r\n', 'ünï €']);
  });

  it('normalises datetimes to UTC with three fractional digits', () => {
    const predicate = predicateOf('createdAt < datetime(2024-01-31T23:59:59.5+02:00)');
    assert.ok(predicate.kind === 'compare' && predicate.value.kind === 'datetime');
    assert.equal(predicate.value.iso, '2024-01-31T21:59:59.500Z');
    assert.equal(predicate.value.hasSubMillis, false);
  });

  it('rejects impossible datetimes', () => {
    for (const text of [
      '2024-02-30T00:00:00Z',
      '2023-02-29T00:00:00Z',
      '2024-01-01T00:00:60Z',
      '12024-01-01T00:00:00Z',
    ]) {
      assert.throws(() => parseFilter(`createdAt = datetime(${text})`), /^FilterError: parsing time/);
    }
    assert.doesNotThrow(() => parseFilter('createdAt = datetime(2024-02-29T00:00:00Z)'));
  });

  it('rejects a fractional skip or limit', () => {
    assert.throws(() => parseFilter('limit 1.5'), { message: 'limit must be an integer, got 1.5' });
    assert.throws(() => parseFilter('skip 1e2'), { message: 'skip must be an integer, got 1e2' });
  });
});

describe('parseFilter: nesting', () => {
  it('accepts nesting up to the limit and refuses deeper nesting with a FilterError', () => {
    const nestedParens = (depth: number): string => `${'('.repeat(depth)}isAdmin${')'.repeat(depth)}`;
    assert.doesNotThrow(() => parseFilter(nestedParens(MAX_NESTING)));
    assert.throws(() => parseFilter(nestedParens(100_000)), {
      name: 'FilterError',
      message: `filter is nested more than ${MAX_NESTING} levels deep`,
    });
    assert.throws(() => parseFilter('not '.repeat(100_000) + 'isAdmin'), { name: 'FilterError' });
  });
});

describe('parseFilter: syntax errors', () => {
  const cases: Array<[filter: string, symbol: string, line: number, column: number]> = [
    ['name = ', '<EOF>', 1, 7],
    ['name == "x"', '=', 1, 6],
    ['limit = 1', '=', 1, 6],
    ['sort = 1', '=', 1, 5],
    ['name = "x" and', '<EOF>', 1, 14],
    ['name = "x"\n  and = 3', '=', 2, 6],
    ['name = "x" xyz', 'xyz', 1, 11],
    ['name not  in ["a"]', 'not', 1, 5],
    ['name in []', ']', 1, 9],
    ['name in ["a", 1]', '1', 1, 14],
    ['name in["a"]', '[', 1, 7],
    ['anyOf(roleAttributes)in ["a"]', 'in', 1, 21],
    ['cost between 1 and "2"', '"2"', 1, 19],
    ['createdAt = Datetime(2024-01-01T00:00:00Z)', 'Datetime', 1, 12],
    ['name = "abc', '"', 1, 7],
    ["name = 'x'", "'x'", 1, 7],
    ['name = "a\u0001b"', '"', 1, 7],
    ['name contains"x"', '"x"', 1, 13],
    ['name icontains 5', '5', 1, 15],
    ['name < true', 'true', 1, 7],
    ['name > null', 'null', 1, 7],
    ['anyOf(roleAttributes)', '<EOF>', 1, 21],
    ['not(isAdmin)', '(', 1, 3],
    ['name = 1 limit 5 skip 2', 'skip', 1, 17],
    ['(name = 1', '<EOF>', 1, 9],
    ['name = 1)', ')', 1, 8],
    ['name @ 1', '@', 1, 5],
    ['sort by name,', '<EOF>', 1, 13],
    ['name = 01', '1', 1, 8],
    ['name = "😀" xyz', 'xyz', 1, 11],
  ];
  for (const [filter, symbol, line, column] of cases) {
    it(`${JSON.stringify(filter)} fails at ${symbol} (${line}:${column})`, () => {
      assertSyntaxError(filter, symbol, line, column);
    });
  }
});
