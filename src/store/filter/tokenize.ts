// Splits a ZitiQL filter into tokens the way ziti's ANTLR lexer does (storage zitiql/ZitiQl.g4).

export type TokenKind =
  | 'ws'
  | 'lparen'
  | 'rparen'
  | 'lbracket'
  | 'rbracket'
  | 'comma'
  | 'and'
  | 'or'
  | 'compare'
  | 'contains'
  | 'icontains'
  | 'in'
  | 'between'
  | 'bool'
  | 'datetime'
  | 'allOf'
  | 'anyOf'
  | 'count'
  | 'isEmpty'
  | 'string'
  | 'number'
  | 'null'
  | 'asc'
  | 'desc'
  | 'sort'
  | 'by'
  | 'skip'
  | 'limit'
  | 'none'
  | 'where'
  | 'from'
  | 'not'
  | 'identifier'
  | 'unrecognized'
  | 'eof';

export interface Token {
  kind: TokenKind;
  text: string;
  /** 1-based line and 0-based column, as ANTLR reports them. */
  line: number;
  column: number;
}

const WS = '[ \\t\\r\\n]';
const RFC3339 =
  `[0-9]+-(?:0[1-9]|1[012])-(?:0[1-9]|[12][0-9]|3[01])[Tt]` +
  `(?:[01][0-9]|2[0-3]):[0-5][0-9]:(?:[0-5][0-9]|60)(?:\\.[0-9]+)?` +
  `(?:[Zz]|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])`;
const IDENTIFIER_PATH = '[A-Za-z][A-Za-z_]*(?:\\.[A-Za-z][A-Za-z_]*)*';

function keyword(kind: TokenKind, pattern: string): [TokenKind, RegExp] {
  return [kind, new RegExp(pattern, 'iy')];
}

/**
 * Lexer rules in grammar order. As in ANTLR the longest match wins and, on a tie, the earlier rule,
 * so `limit` is a keyword but `tags.limit` and `limits` are identifiers.
 */
const RULES: ReadonlyArray<[TokenKind, RegExp]> = [
  ['ws', new RegExp(WS, 'y')],
  ['lparen', /\(/y],
  ['rparen', /\)/y],
  ['lbracket', /\[/y],
  ['rbracket', /\]/y],
  ['comma', /,/y],
  keyword('and', 'and'),
  keyword('or', 'or'),
  ['compare', /<=?|>=?|!?=/y],
  keyword('contains', `(?:not${WS}+)?contains`),
  keyword('icontains', `(?:not${WS}+)?icontains`),
  // Upstream quirk kept on purpose: `not in` allows exactly one whitespace character.
  keyword('in', `(?:not${WS})?in`),
  keyword('between', `(?:not${WS}+)?between`),
  keyword('bool', 'true|false'),
  // `datetime(` is matched case-sensitively, unlike every other keyword.
  ['datetime', new RegExp(`datetime\\(${WS}*${RFC3339}${WS}*\\)`, 'y')],
  keyword('allOf', 'allof'),
  keyword('anyOf', 'anyof'),
  keyword('count', 'count'),
  keyword('isEmpty', 'isempty'),
  // eslint-disable-next-line no-control-regex -- the grammar forbids raw control characters inside strings
  ['string', /"(?:\\["\\fnrt]|[^"\\\u0000-\u001f])*"/y],
  ['number', /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?(?:0|[1-9][0-9]*))?/y],
  keyword('null', 'null'),
  keyword('asc', 'asc'),
  keyword('desc', 'desc'),
  keyword('sort', 'sort'),
  keyword('by', 'by'),
  keyword('skip', 'skip'),
  keyword('limit', 'limit'),
  keyword('none', 'none'),
  keyword('where', 'where'),
  keyword('from', 'from'),
  keyword('not', 'not'),
  ['identifier', new RegExp(`${IDENTIFIER_PATH}|'${IDENTIFIER_PATH}'`, 'y')],
];

function longestMatch(input: string, offset: number): { kind: TokenKind; text: string } {
  let best: { kind: TokenKind; text: string } | undefined;
  for (const [kind, pattern] of RULES) {
    pattern.lastIndex = offset;
    const match = pattern.exec(input);
    if (match && match[0].length > 0 && (!best || match[0].length > best.text.length)) {
      best = { kind, text: match[0] };
    }
  }
  // A character no rule accepts becomes its own token, so the parser reports it as the unexpected symbol.
  return best ?? { kind: 'unrecognized', text: String.fromCodePoint(input.codePointAt(offset) ?? 0) };
}

/** Tokenizes the whole input, whitespace included (the grammar's whitespace rules are enforced by the parser). */
export function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let offset = 0;
  let line = 1;
  let column = 0;
  while (offset < input.length) {
    const { kind, text } = longestMatch(input, offset);
    tokens.push({ kind, text, line, column });
    // Columns count code points, as ANTLR's do; only \n starts a new line.
    for (const char of text) {
      if (char === '\n') {
        line++;
        column = 0;
      } else {
        column++;
      }
    }
    offset += text.length;
  }
  tokens.push({ kind: 'eof', text: '<EOF>', line, column });
  return tokens;
}
