// A position in the token list with the look-ahead and whitespace helpers the filter parser needs.
import { FilterError } from './filter-types.js';
import type { Token, TokenKind } from './tokenize.js';

/** The syntax error upstream's ANTLR error listener produces for the first offending token. */
export function syntaxError(token: Token): FilterError {
  const { text, line, column } = token;
  return new FilterError(
    'filter',
    `Unexpected symbol: "${text}" at line: ${line} column: ${column}. line: ${line}, column: ${column}, symbol: ${text}`,
  );
}

/** Deeper nesting of parentheses and `not` is refused before it can exhaust the call stack (a 500). */
export const MAX_NESTING = 100;

export class TokenCursor {
  readonly #tokens: readonly Token[];
  readonly #eof: Token;
  #index = 0;
  #depth = 0;

  constructor(tokens: readonly Token[]) {
    const eof = tokens.at(-1);
    if (eof?.kind !== 'eof') throw new Error('a token list ends with its eof token');
    this.#tokens = tokens;
    this.#eof = eof;
  }

  get current(): Token {
    // The cursor never moves past the eof token (next).
    return this.#tokens[this.#index] ?? this.#eof;
  }

  at(...kinds: TokenKind[]): boolean {
    return kinds.includes(this.current.kind);
  }

  next(): Token {
    const token = this.current;
    if (token.kind !== 'eof') this.#index++;
    return token;
  }

  mark(): number {
    return this.#index;
  }

  reset(mark: number): void {
    this.#index = mark;
  }

  /** Skips whitespace tokens and returns how many there were. */
  skipWs(): number {
    let count = 0;
    while (this.current.kind === 'ws') {
      this.next();
      count++;
    }
    return count;
  }

  /** Consumes at least one whitespace token (the grammar's `ws+`). */
  requireWs(): void {
    if (this.skipWs() === 0) this.fail();
  }

  /** True when one or more whitespace tokens are followed by one of `kinds`; consumes nothing. */
  isAfterWs(...kinds: TokenKind[]): boolean {
    const mark = this.mark();
    const found = this.skipWs() > 0 && this.at(...kinds);
    this.reset(mark);
    return found;
  }

  expect(...kinds: TokenKind[]): Token {
    if (!this.at(...kinds)) this.fail();
    return this.next();
  }

  /** Runs `parse` one nesting level deeper. */
  nested<T>(parse: () => T): T {
    if (this.#depth >= MAX_NESTING) {
      throw new FilterError('filter', `filter is nested more than ${MAX_NESTING} levels deep`);
    }
    this.#depth++;
    try {
      return parse();
    } finally {
      this.#depth--;
    }
  }

  fail(): never {
    throw syntaxError(this.current);
  }
}
