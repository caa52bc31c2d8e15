// Resolves filter symbols against an entity's public symbol table and reports misuse, as ziti's SymbolValidator does.
import {
  FilterError,
  type FilterQuery,
  type Operand,
  type Predicate,
  type SetOperand,
  type Lookup,
  type SetSymbolRef,
  type SymbolTable,
  type SymbolType,
} from './filter-types.js';

export type ResolvedSymbol =
  | { kind: 'column'; name: string; type: SymbolType; column: string; via?: Lookup }
  | { kind: 'set'; set: SetSymbolRef }
  /** `tags` itself (keys empty) or `tags.a.b`. */
  | { kind: 'map'; name: string; column: string; keys: string[] };

export type SetFunctionName = 'anyOf' | 'allOf' | 'count' | 'isEmpty';

function unknownSymbol(name: string): FilterError {
  return new FilterError('filter', `unknown symbol '${name}'`);
}

/** Looks a name up; `tags.<key>...` resolves through the map symbol `tags`. Throws on unknown names. */
export function resolveSymbol(name: string, symbols: SymbolTable): ResolvedSymbol {
  // Object.hasOwn keeps names such as `constructor` from resolving to Object.prototype members.
  const symbol = Object.hasOwn(symbols, name) ? symbols[name] : undefined;
  if (symbol?.kind === 'column')
    return {
      kind: 'column',
      name,
      type: symbol.type,
      column: symbol.column,
      ...(symbol.via ? { via: symbol.via } : {}),
    };
  if (symbol?.kind === 'set') return { kind: 'set', set: { name, ...symbol } };
  if (symbol?.kind === 'map') return { kind: 'map', name, column: symbol.column, keys: [] };
  const [prefix = '', ...keys] = name.split('.');
  const map = keys.length > 0 && Object.hasOwn(symbols, prefix) ? symbols[prefix] : undefined;
  if (map?.kind === 'map') return { kind: 'map', name, column: map.column, keys };
  throw unknownSymbol(name);
}

/** A symbol used as a plain value (comparison, bare boolean, sort field): set symbols are not allowed here. */
export function resolveValueSymbol(name: string, symbols: SymbolTable): Exclude<ResolvedSymbol, { kind: 'set' }> {
  const resolved = resolveSymbol(name, symbols);
  if (resolved.kind === 'set') {
    throw new FilterError('filter', `symbol '${name}' is a set symbol but is used in non-set function context`);
  }
  return resolved;
}

/** A symbol inside anyOf / allOf / count / isEmpty: it must be a set symbol. */
export function resolveSetSymbol(name: string, fn: SetFunctionName, symbols: SymbolTable): SetSymbolRef {
  const resolved = resolveSymbol(name, symbols);
  if (resolved.kind !== 'set') {
    throw new FilterError('filter', `symbol '${name}' is not a set symbol but is used in set function ${fn}`);
  }
  return resolved.set;
}

/**
 * Sub-queries are parsed (they are valid syntax) but refused: upstream checks their inner symbols against the
 * outer entity's public symbols, which makes them practically unusable through the REST API.
 */
export function resolveSetOperand(operand: SetOperand, fn: 'count' | 'isEmpty', symbols: SymbolTable): SetSymbolRef {
  const set = resolveSetSymbol(operand.symbol, fn, symbols);
  if (operand.subquery) {
    throw new FilterError(
      'filter',
      `sub-queries are not supported: use ${fn}(${operand.symbol}) instead of ${fn}(from ${operand.symbol} where ...)`,
    );
  }
  return set;
}

function validateOperand(operand: Operand, symbols: SymbolTable): void {
  if (operand.kind === 'symbol') resolveValueSymbol(operand.name, symbols);
  else if (operand.kind === 'quantified') resolveSetSymbol(operand.name, operand.quantifier, symbols);
  else resolveSetOperand(operand.set, 'count', symbols);
}

function validatePredicate(predicate: Predicate, symbols: SymbolTable): void {
  switch (predicate.kind) {
    case 'and':
    case 'or':
      predicate.operands.forEach((operand) => validatePredicate(operand, symbols));
      return;
    case 'not':
      validatePredicate(predicate.operand, symbols);
      return;
    case 'constant':
      return;
    case 'bareSymbol':
      resolveValueSymbol(predicate.name, symbols);
      return;
    case 'isEmpty':
      resolveSetOperand(predicate.set, 'isEmpty', symbols);
      return;
    default:
      validateOperand(predicate.lhs, symbols);
  }
}

/**
 * Checks every symbol of the query before any typing, so an unknown or misused symbol is reported even when a
 * type error comes earlier in the text (upstream validates public symbols first, then types the tree).
 */
export function validateSymbols(query: FilterQuery, symbols: SymbolTable): void {
  validatePredicate(query.predicate, symbols);
  for (const field of query.sort ?? []) resolveValueSymbol(field.name, symbols);
}
