// Recursive-descent parser for ZitiQL (grammar: docs/reference/http-conventions.md §5.2), producing the syntax tree of
// filter-types.ts.
import {
  FilterError,
  type CompareOp,
  type FilterQuery,
  type Literal,
  type Operand,
  type Predicate,
  type SetOperand,
  type SortField,
} from './filter-types.js';
import { parseDatetime, parseNumber, unescapeString } from './literals.js';
import { syntaxError, TokenCursor } from './token-cursor.js';
import { tokenize, type Token, type TokenKind } from './tokenize.js';

const ALWAYS_TRUE: Predicate = { kind: 'constant', value: true };
/** Literal kinds allowed after an ordering comparison and inside arrays. */
const ORDERED_VALUES: TokenKind[] = ['string', 'number', 'datetime'];

/** Parses a whole filter; an empty or blank filter means `true`. Throws FilterError (kind 'filter'). */
export function parseFilter(input: string): FilterQuery {
  const cursor = new TokenCursor(tokenize(input));
  cursor.skipWs();
  const query = cursor.at('eof') ? { predicate: ALWAYS_TRUE } : parseQuery(cursor);
  cursor.skipWs();
  cursor.expect('eof');
  return query;
}

/** predicate [sort] [skip] [limit], where the predicate may be left out when a clause follows. */
function parseQuery(cursor: TokenCursor): FilterQuery {
  const query: FilterQuery = { predicate: ALWAYS_TRUE };
  let isFirst = true;
  const clauseAhead = (kind: TokenKind): boolean => {
    if (isFirst ? !cursor.at(kind) : !cursor.isAfterWs(kind)) return false;
    cursor.skipWs();
    isFirst = false;
    return true;
  };
  if (!cursor.at('sort', 'skip', 'limit')) {
    query.predicate = parseOr(cursor);
    isFirst = false;
  }
  if (clauseAhead('sort')) query.sort = parseSortBy(cursor);
  if (clauseAhead('skip')) query.skip = parseClauseNumber(cursor, 'skip');
  if (clauseAhead('limit')) query.limit = parseClauseNumber(cursor, 'limit');
  return query;
}

function parseSortBy(cursor: TokenCursor): SortField[] {
  cursor.expect('sort');
  cursor.requireWs();
  cursor.expect('by');
  cursor.requireWs();
  const fields = [parseSortField(cursor)];
  for (;;) {
    const mark = cursor.mark();
    cursor.skipWs();
    if (!cursor.at('comma')) {
      cursor.reset(mark);
      return fields;
    }
    cursor.next();
    cursor.skipWs();
    fields.push(parseSortField(cursor));
  }
}

function parseSortField(cursor: TokenCursor): SortField {
  const name = cursor.expect('identifier').text;
  if (!cursor.isAfterWs('asc', 'desc')) return { name, ascending: true };
  cursor.skipWs();
  return { name, ascending: cursor.next().kind === 'asc' };
}

/** `skip N` or `limit N|none`; `limit none` is returned as -1, as upstream stores it. */
function parseClauseNumber(cursor: TokenCursor, clause: 'skip' | 'limit'): number {
  cursor.expect(clause);
  cursor.requireWs();
  if (clause === 'limit' && cursor.at('none')) {
    cursor.next();
    return -1;
  }
  const token = cursor.expect('number');
  if (!/^-?[0-9]+$/.test(token.text)) {
    throw new FilterError('filter', `${clause} must be an integer, got ${token.text}`);
  }
  return Number(token.text);
}

function parseOr(cursor: TokenCursor): Predicate {
  return parseJoined(cursor, 'or', () => parseAnd(cursor));
}

function parseAnd(cursor: TokenCursor): Predicate {
  return parseJoined(cursor, 'and', () => parseUnary(cursor));
}

/** `operand (ws+ <joiner> ws+ operand)*`; `and` binds tighter than `or` because parseOr joins parseAnd results. */
function parseJoined(cursor: TokenCursor, joiner: 'and' | 'or', parseOperand: () => Predicate): Predicate {
  const operands = [parseOperand()];
  while (cursor.isAfterWs(joiner)) {
    cursor.skipWs();
    cursor.next();
    cursor.requireWs();
    operands.push(parseOperand());
  }
  return operands.length === 1 && operands[0] ? operands[0] : { kind: joiner, operands };
}

/**
 * `not` applies to the single primary that follows it, so `not a = 1 and b = 2` means
 * `(not a = 1) and b = 2`. Upstream's ANTLR grammar gives `not` the lowest precedence instead
 * (probably `not (a = 1 and b = 2)`); we chose the conventional reading, and the reference tells
 * users to parenthesise the operand of `not`, which reads the same under both.
 */
function parseUnary(cursor: TokenCursor): Predicate {
  if (!cursor.at('not')) return parsePrimary(cursor);
  cursor.next();
  cursor.requireWs();
  return { kind: 'not', operand: cursor.nested(() => parseUnary(cursor)) };
}

function parsePrimary(cursor: TokenCursor): Predicate {
  const token = cursor.current;
  switch (token.kind) {
    case 'lparen': {
      cursor.next();
      cursor.skipWs();
      const inner = cursor.nested(() => parseOr(cursor));
      cursor.skipWs();
      cursor.expect('rparen');
      return inner;
    }
    case 'bool':
      cursor.next();
      return { kind: 'constant', value: token.text.toLowerCase() === 'true' };
    case 'isEmpty':
      cursor.next();
      return { kind: 'isEmpty', set: parseSetArgument(cursor) };
    case 'identifier':
    case 'anyOf':
    case 'allOf':
    case 'count':
      return parseComparison(cursor);
    default:
      return cursor.fail();
  }
}

/** `( ws* setExpr ws* )` after count / isEmpty. */
function parseSetArgument(cursor: TokenCursor): SetOperand {
  cursor.expect('lparen');
  cursor.skipWs();
  let set: SetOperand;
  if (cursor.at('from')) {
    cursor.next();
    cursor.requireWs();
    const symbol = cursor.expect('identifier').text;
    cursor.requireWs();
    cursor.expect('where');
    cursor.requireWs();
    set = { symbol, subquery: parseQuery(cursor) };
  } else {
    set = { symbol: cursor.expect('identifier').text };
  }
  cursor.skipWs();
  cursor.expect('rparen');
  return set;
}

function parseOperand(cursor: TokenCursor): Operand {
  const token = cursor.next();
  if (token.kind === 'identifier') return { kind: 'symbol', name: token.text };
  if (token.kind === 'count') return { kind: 'count', set: parseSetArgument(cursor) };
  cursor.expect('lparen');
  cursor.skipWs();
  const name = cursor.expect('identifier').text;
  cursor.skipWs();
  cursor.expect('rparen');
  return { kind: 'quantified', quantifier: token.kind === 'anyOf' ? 'anyOf' : 'allOf', name };
}

function isNegated(token: Token): boolean {
  return /^not/i.test(token.text);
}

const COMPARE_OPS: ReadonlySet<string> = new Set<CompareOp>(['=', '!=', '<', '<=', '>', '>=']);
const isCompareOp = (text: string): text is CompareOp => COMPARE_OPS.has(text);

function parseComparison(cursor: TokenCursor): Predicate {
  const lhs = parseOperand(cursor);
  const mark = cursor.mark();
  const hasWs = cursor.skipWs() > 0;
  const token = cursor.current;
  switch (token.kind) {
    case 'compare': {
      cursor.next();
      cursor.skipWs();
      const op = token.text;
      if (!isCompareOp(op)) throw syntaxError(token);
      const allowed: TokenKind[] = op === '=' || op === '!=' ? [...ORDERED_VALUES, 'bool', 'null'] : ORDERED_VALUES;
      return { kind: 'compare', lhs, op, value: parseLiteral(cursor.expect(...allowed)) };
    }
    case 'contains':
    case 'icontains': {
      cursor.next();
      cursor.requireWs();
      const ignoreCase = token.kind === 'icontains';
      const value = parseLiteral(ignoreCase ? cursor.expect('string') : cursor.expect('string', 'number'));
      return { kind: 'contains', lhs, negated: isNegated(token), ignoreCase, value };
    }
    case 'in':
    case 'between':
      if (!hasWs) cursor.fail();
      cursor.next();
      cursor.requireWs();
      return token.kind === 'in'
        ? { kind: 'in', lhs, negated: isNegated(token), values: parseArray(cursor) }
        : { kind: 'between', lhs, negated: isNegated(token), ...parseBounds(cursor) };
    default:
      cursor.reset(mark);
      if (lhs.kind === 'symbol') return { kind: 'bareSymbol', name: lhs.name };
      cursor.skipWs();
      return cursor.fail();
  }
}

/** `[ v, v, ... ]`: non-empty, and every element of the first element's kind. */
function parseArray(cursor: TokenCursor): Literal[] {
  cursor.expect('lbracket');
  cursor.skipWs();
  const first = cursor.expect(...ORDERED_VALUES);
  const values = [parseLiteral(first)];
  for (;;) {
    const mark = cursor.mark();
    cursor.skipWs();
    if (!cursor.at('comma')) {
      cursor.reset(mark);
      break;
    }
    cursor.next();
    cursor.skipWs();
    values.push(parseLiteral(cursor.expect(first.kind)));
  }
  cursor.skipWs();
  cursor.expect('rbracket');
  return values;
}

/** `A ws+ and ws+ B`, both numbers or both datetimes. */
function parseBounds(cursor: TokenCursor): { lower: Literal; upper: Literal } {
  const lowerToken = cursor.expect('number', 'datetime');
  cursor.requireWs();
  cursor.expect('and');
  cursor.requireWs();
  const upperToken = cursor.expect(lowerToken.kind);
  return { lower: parseLiteral(lowerToken), upper: parseLiteral(upperToken) };
}

function parseLiteral(token: Token): Literal {
  switch (token.kind) {
    case 'string':
      return { kind: 'string', value: unescapeString(token.text) };
    case 'number':
      return parseNumber(token.text);
    case 'datetime':
      return parseDatetime(token.text);
    case 'bool':
      return { kind: 'bool', value: token.text.toLowerCase() === 'true' };
    default:
      return { kind: 'null' };
  }
}
