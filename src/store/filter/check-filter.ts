// Types a parsed filter against the symbol table and lowers each comparison to a storage-level value test.
import {
  FilterError,
  type CompareOp,
  type FilterQuery,
  type Literal,
  type Operand,
  type Predicate,
  type SymbolTable,
  type SymbolType,
  type CheckedPredicate,
  type CheckedSortField,
  type MapValueKind,
  type Scalar,
  type Subject,
  type ValueTest,
} from './filter-types.js';
import { describeLiteral, nextMillisecond, numberAsText } from './literals.js';
import { resolveSetOperand, resolveSetSymbol, resolveValueSymbol, validateSymbols } from './resolve-symbols.js';

/** Upstream's operand type names (storage ast nodeTypeNames). */
type OperandType = 'string' | 'number' | 'date' | 'bool' | 'other' | 'any';

const TYPE_NAMES: Readonly<Record<SymbolType, OperandType>> = {
  string: 'string',
  number: 'number',
  bool: 'bool',
  datetime: 'date',
};

const LITERAL_TYPES: Readonly<Record<Literal['kind'], OperandType>> = {
  string: 'string',
  number: 'number',
  datetime: 'date',
  bool: 'bool',
  null: 'other',
};

/** What a comparison's left side turned out to be. */
interface TypedOperand {
  subject: Subject | undefined;
  type: OperandType;
  text: string;
  isPlainSymbol: boolean;
}

function typeOperand(operand: Operand, symbols: SymbolTable): TypedOperand {
  if (operand.kind === 'count') {
    const set = resolveSetOperand(operand.set, 'count', symbols);
    return { subject: { kind: 'setCount', set }, type: 'number', text: `count(${set.name})`, isPlainSymbol: false };
  }
  if (operand.kind === 'quantified') {
    const set = resolveSetSymbol(operand.name, operand.quantifier, symbols);
    const subject: Subject = { kind: 'setElements', quantifier: operand.quantifier, set };
    // Upstream types the comparison on the set's element symbol, so messages name the bare symbol.
    return { subject, type: TYPE_NAMES[set.type], text: set.name, isPlainSymbol: false };
  }
  const resolved = resolveValueSymbol(operand.name, symbols);
  if (resolved.kind === 'column') {
    const subject: Subject = {
      kind: 'column',
      column: resolved.column,
      ...(resolved.via ? { via: resolved.via } : {}),
    };
    return { subject, type: TYPE_NAMES[resolved.type], text: operand.name, isPlainSymbol: true };
  }
  if (resolved.keys.length === 0) return { subject: undefined, type: 'other', text: operand.name, isPlainSymbol: true };
  const subject: Subject = { kind: 'mapValue', column: resolved.column, keys: resolved.keys, as: 'any' };
  return { subject, type: 'any', text: operand.name, isPlainSymbol: true };
}

function unsupported(expression: string, ...types: OperandType[]): FilterError {
  return new FilterError('filter', `operation ${expression} is not supported with operands types ${types.join(', ')}`);
}

/** A map value is read as the type the literal asks for; datetimes are stored as text. */
function withMapKind(subject: Subject, literalKind: Literal['kind']): Subject {
  if (subject.kind !== 'mapValue') return subject;
  const as: MapValueKind = literalKind === 'number' ? 'number' : literalKind === 'bool' ? 'bool' : 'string';
  return { ...subject, as };
}

/**
 * Stored datetimes have whole milliseconds, so a literal with finer digits is replaced by the whole millisecond
 * that gives the same answer: the one after it for `<` and `>=`, the one before it (truncation) for `<=` and `>`.
 */
function datetimeBound(literal: Extract<Literal, { kind: 'datetime' }>, op: CompareOp): string {
  return literal.hasSubMillis && (op === '<' || op === '>=') ? nextMillisecond(literal.iso) : literal.iso;
}

function checkCompare(lhs: TypedOperand, op: CompareOp, value: Literal): CheckedPredicate {
  const fail = (): never => {
    throw unsupported(`${lhs.text} ${op} ${describeLiteral(value)}`, lhs.type, LITERAL_TYPES[value.kind]);
  };
  const subject = lhs.subject ?? fail();
  if (value.kind === 'null') {
    if (!lhs.isPlainSymbol) fail();
    return { kind: 'test', subject, test: { kind: 'isNull', negated: op === '!=' } };
  }
  const type = lhs.type === 'any' ? LITERAL_TYPES[value.kind] : lhs.type;
  const typed = withMapKind(subject, value.kind);
  if (type === 'bool' && value.kind === 'bool' && (op === '=' || op === '!=')) {
    return { kind: 'test', subject: typed, test: { kind: 'isTrue', expected: (op === '=') === value.value } };
  }
  if (type === 'date' && value.kind === 'datetime') {
    if (value.hasSubMillis && op === '=') return { kind: 'constant', value: false };
    if (value.hasSubMillis && op === '!=')
      return { kind: 'test', subject: typed, test: { kind: 'isNull', negated: true } };
    return { kind: 'test', subject: typed, test: { kind: 'compare', op, value: datetimeBound(value, op) } };
  }
  if (type === 'number' && value.kind === 'number') {
    return { kind: 'test', subject: typed, test: { kind: 'compare', op, value: value.value } };
  }
  if (type === 'string' && (value.kind === 'string' || value.kind === 'number')) {
    const text = value.kind === 'string' ? value.value : numberAsText(value.value);
    return { kind: 'test', subject: withMapKind(subject, 'string'), test: { kind: 'compare', op, value: text } };
  }
  return fail();
}

function checkContains(lhs: TypedOperand, predicate: Extract<Predicate, { kind: 'contains' }>): CheckedPredicate {
  const { negated, ignoreCase, value } = predicate;
  const opName = `${negated ? 'not ' : ''}${ignoreCase ? 'icontains' : 'contains'}`;
  const isTextual = lhs.type === 'string' || lhs.type === 'number' || lhs.type === 'any';
  if (!lhs.subject || !isTextual || (value.kind !== 'string' && value.kind !== 'number')) {
    throw unsupported(`${lhs.text} ${opName} ${describeLiteral(value)}`, lhs.type, LITERAL_TYPES[value.kind]);
  }
  const text = value.kind === 'string' ? value.value : numberAsText(value.value);
  const test: ValueTest = { kind: 'contains', negated, ignoreCase, text, subjectAsText: lhs.type === 'number' };
  return { kind: 'test', subject: withMapKind(lhs.subject, 'string'), test };
}

function checkIn(lhs: TypedOperand, predicate: Extract<Predicate, { kind: 'in' }>): CheckedPredicate {
  const { negated, values } = predicate;
  const elementKind = values[0]?.kind ?? 'string';
  const elementType = LITERAL_TYPES[elementKind];
  const type = lhs.type === 'any' ? elementType : lhs.type;
  const isAllowed = type === elementType || (type === 'string' && elementType === 'number');
  if (!lhs.subject || !isAllowed) {
    const list = `[${values.map(describeLiteral).join(', ')}]`;
    throw unsupported(`${lhs.text} ${negated ? 'not in' : 'in'} ${list}`, lhs.type, elementType);
  }
  const scalars = values.flatMap((literal): Scalar[] => {
    if (literal.kind === 'datetime') return literal.hasSubMillis ? [] : [literal.iso];
    if (literal.kind === 'number') return [type === 'string' ? numberAsText(literal.value) : literal.value];
    return literal.kind === 'string' ? [literal.value] : [];
  });
  // Only datetimes finer than a millisecond are dropped: they can never equal a stored value.
  if (scalars.length === 0) return { kind: 'constant', value: negated };
  const subject = withMapKind(lhs.subject, type === 'string' ? 'string' : elementKind);
  return { kind: 'test', subject, test: { kind: 'in', negated, values: scalars } };
}

function checkBetween(lhs: TypedOperand, predicate: Extract<Predicate, { kind: 'between' }>): CheckedPredicate {
  const { negated, lower, upper } = predicate;
  const boundType = LITERAL_TYPES[lower.kind];
  const type = lhs.type === 'any' ? boundType : lhs.type;
  if (!lhs.subject || type !== boundType) {
    const expression = `${lhs.text} ${negated ? 'not between' : 'between'} ${describeLiteral(lower)} and ${describeLiteral(upper)}`;
    throw unsupported(expression, lhs.type, boundType);
  }
  // Half-open: lower <= value < upper, so both datetime bounds round like `>=` and `<`.
  const bound = (literal: Literal): Scalar =>
    literal.kind === 'datetime' ? datetimeBound(literal, '<') : literal.kind === 'number' ? literal.value : '';
  const test: ValueTest = { kind: 'between', negated, lower: bound(lower), upper: bound(upper) };
  return { kind: 'test', subject: withMapKind(lhs.subject, lower.kind), test };
}

function checkPredicate(predicate: Predicate, symbols: SymbolTable): CheckedPredicate {
  switch (predicate.kind) {
    case 'and':
    case 'or':
      return { kind: predicate.kind, operands: predicate.operands.map((operand) => checkPredicate(operand, symbols)) };
    case 'not':
      return { kind: 'not', operand: checkPredicate(predicate.operand, symbols) };
    case 'constant':
      return predicate;
    case 'isEmpty':
      return { kind: 'isEmpty', set: resolveSetOperand(predicate.set, 'isEmpty', symbols) };
    case 'bareSymbol': {
      // A bare symbol means `symbol = true` (docs/reference/http-conventions.md §5.3).
      const lhs = typeOperand({ kind: 'symbol', name: predicate.name }, symbols);
      return checkCompare(lhs, '=', { kind: 'bool', value: true });
    }
    case 'compare':
      return checkCompare(typeOperand(predicate.lhs, symbols), predicate.op, predicate.value);
    case 'contains':
      return checkContains(typeOperand(predicate.lhs, symbols), predicate);
    case 'in':
      return checkIn(typeOperand(predicate.lhs, symbols), predicate);
    case 'between':
      return checkBetween(typeOperand(predicate.lhs, symbols), predicate);
  }
}

/** Only plain columns can be sorted on; a map value is refused here rather than failing when the query runs. */
function checkSortField(name: string, ascending: boolean, symbols: SymbolTable): CheckedSortField {
  const resolved = resolveValueSymbol(name, symbols);
  if (resolved.kind !== 'column') throw new FilterError('filter', `no such sort field: ${name}`);
  return { column: resolved.column, ...(resolved.via ? { via: resolved.via } : {}), ascending };
}

/** Validates symbols, then types the predicate and sort fields. Throws FilterError (kind 'filter'). */
export function checkFilter(
  query: FilterQuery,
  symbols: SymbolTable,
): { predicate: CheckedPredicate; sort: CheckedSortField[] | undefined } {
  validateSymbols(query, symbols);
  const predicate = checkPredicate(query.predicate, symbols);
  const sort = query.sort?.map((field) => checkSortField(field.name, field.ascending, symbols));
  return { predicate, sort };
}
