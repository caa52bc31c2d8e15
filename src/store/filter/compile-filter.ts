// Compiles a checked filter predicate to a kysely SQL fragment; every literal is bound as a parameter.
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { FilterSqlDialect } from './sql-dialect.js';
import type { CheckedPredicate, IndexPage, Lookup, SetSymbolRef, Subject, ValueTest } from './filter-types.js';

export interface CompileTarget {
  /** Alias of the listed table in the caller's query; every column reference is qualified with it. */
  alias: string;
  idColumn: string;
  dialect: FilterSqlDialect;
}

type Fragment = RawBuilder<unknown>;

const SQL_OPERATORS = { '=': '=', '!=': '<>', '<': '<', '<=': '<=', '>': '>', '>=': '>=' } as const;

/** Upstream's two-valued logic: NOT of an unknown (NULL) test is true, so `not` is `IS NOT TRUE`. */
function isNotTrue(predicate: RawBuilder<SqlBool>): RawBuilder<SqlBool> {
  return sql<SqlBool>`(${predicate}) IS NOT TRUE`;
}

/** Negated tests (`not in`, `not between`, `not contains`, bool false) are true for absent values. */
function absentOrNot(value: Fragment, predicate: RawBuilder<SqlBool>): RawBuilder<SqlBool> {
  return sql<SqlBool>`(${value} IS NULL OR NOT (${predicate}))`;
}

function compileTest(value: Fragment, test: ValueTest, dialect: FilterSqlDialect): RawBuilder<SqlBool> {
  const scalar = (literal: string | number) =>
    typeof literal === 'number' ? dialect.number(literal) : sql.val(literal);
  switch (test.kind) {
    case 'compare':
      return sql<SqlBool>`${value} ${sql.raw(SQL_OPERATORS[test.op])} ${scalar(test.value)}`;
    case 'contains': {
      const haystack = test.subjectAsText ? dialect.asText(value) : value;
      const needle = sql.val(test.text);
      const found = test.ignoreCase
        ? dialect.containsTextIgnoringCase(haystack, needle)
        : dialect.containsText(haystack, needle);
      return test.negated ? absentOrNot(value, found) : found;
    }
    case 'in': {
      const found = sql<SqlBool>`${value} IN (${sql.join(test.values.map(scalar))})`;
      return test.negated ? absentOrNot(value, found) : found;
    }
    case 'between': {
      const found = sql<SqlBool>`(${value} >= ${scalar(test.lower)} AND ${value} < ${scalar(test.upper)})`;
      return test.negated ? absentOrNot(value, found) : found;
    }
    case 'isNull':
      return test.negated ? sql<SqlBool>`${value} IS NOT NULL` : sql<SqlBool>`${value} IS NULL`;
    case 'isTrue':
      return test.expected ? dialect.isTrue(value) : absentOrNot(value, dialect.isTrue(value));
  }
}

/**
 * `a OR b OR c ...` parses as a left-deep tree, and SQLite refuses expressions deeper than 1000 levels;
 * long chains are therefore split into balanced, parenthesised halves.
 */
function joinBalanced(parts: RawBuilder<SqlBool>[], joiner: Fragment): RawBuilder<SqlBool> {
  if (parts.length <= 16) return sql<SqlBool>`(${sql.join(parts, joiner)})`;
  const middle = Math.ceil(parts.length / 2);
  return sql<SqlBool>`(${joinBalanced(parts.slice(0, middle), joiner)}${joiner}${joinBalanced(parts.slice(middle), joiner)})`;
}

class FilterCompiler {
  readonly #target: CompileTarget;
  readonly #ownerId: Fragment;

  constructor(target: CompileTarget) {
    this.#target = target;
    this.#ownerId = sql.ref(`${target.alias}.${target.idColumn}`);
  }

  predicate(predicate: CheckedPredicate): RawBuilder<SqlBool> {
    switch (predicate.kind) {
      case 'and':
      case 'or': {
        const joiner = predicate.kind === 'and' ? sql` AND ` : sql` OR `;
        return joinBalanced(
          predicate.operands.map((operand) => this.predicate(operand)),
          joiner,
        );
      }
      case 'not':
        return isNotTrue(this.predicate(predicate.operand));
      case 'constant':
        return predicate.value ? sql<SqlBool>`1 = 1` : sql<SqlBool>`1 = 0`;
      case 'isEmpty':
        return sql<SqlBool>`${this.#ownerId} NOT IN ${this.#ownersWhere(predicate.set)}`;
      case 'test':
        return this.#test(predicate.subject, predicate.test);
    }
  }

  #column(column: string, via?: Lookup): Fragment {
    return columnExpression(this.#target.alias, column, via);
  }

  /** Distinct from the outer alias, so the correlation `<alias>.<id>` always means the listed row. */
  get #setAlias(): string {
    return `${this.#target.alias}__element`;
  }

  #fromSet(set: SetSymbolRef): Fragment {
    return sql`FROM ${sql.table(set.table)} AS ${sql.id(this.#setAlias)}`;
  }

  #elementsOfOwner(set: SetSymbolRef): Fragment {
    const owner = sql.ref(`${this.#setAlias}.${set.ownerColumn}`);
    return sql`${this.#fromSet(set)} WHERE ${owner} = ${this.#ownerId}`;
  }

  #test(subject: Subject, test: ValueTest): RawBuilder<SqlBool> {
    const { dialect } = this.#target;
    switch (subject.kind) {
      case 'column':
        return compileTest(this.#column(subject.column, subject.via), test, dialect);
      case 'mapValue':
        return compileTest(dialect.mapValue(this.#column(subject.column), subject.keys, subject.as), test, dialect);
      case 'setCount':
        return compileTest(sql`(SELECT count(*) ${this.#elementsOfOwner(subject.set)})`, test, dialect);
      case 'setElements':
        return this.#quantified(subject.quantifier, subject.set, test);
    }
  }

  /** Owners of the set rows that pass `test`, as an uncorrelated sub-select the database evaluates once. */
  #ownersWhere(set: SetSymbolRef, test?: RawBuilder<SqlBool>): Fragment {
    const owner = sql.ref(`${this.#setAlias}.${set.ownerColumn}`);
    // NOT IN is unknown (not false) when the list holds a NULL, so NULL owners are kept out of it.
    const condition = test ? sql`${owner} IS NOT NULL AND ${test}` : sql`${owner} IS NOT NULL`;
    return sql`(SELECT ${owner} ${this.#fromSet(set)} WHERE ${condition})`;
  }

  /**
   * anyOf: the owner has an element passing the test; allOf: it has none failing it (true for an empty set);
   * isEmpty: it has no element. Written as `id [NOT] IN (uncorrelated sub-select)` rather than correlated
   * EXISTS so SQLite drives anyOf from an index on the set's (value, owner) instead of probing the set once
   * per listed row.
   */
  #quantified(quantifier: 'anyOf' | 'allOf', set: SetSymbolRef, test: ValueTest): RawBuilder<SqlBool> {
    const elementTest = compileTest(sql.ref(`${this.#setAlias}.${set.valueColumn}`), test, this.#target.dialect);
    return quantifier === 'anyOf'
      ? sql<SqlBool>`${this.#ownerId} IN ${this.#ownersWhere(set, elementTest)}`
      : sql<SqlBool>`${this.#ownerId} NOT IN ${this.#ownersWhere(set, isNotTrue(elementTest))}`;
  }
}

/**
 * The count of a filter that is one `anyOf(set) <test>` and nothing else, straight from the set's (value, owner)
 * index: every set row has its owner (the side table's foreign key deletes with it), so the owners passing the test
 * are the matches, counted without visiting the listed table once per match. Undefined for any other filter.
 */
export function compileIndexCount(
  predicate: CheckedPredicate,
  target: CompileTarget,
): RawBuilder<{ n: number }> | undefined {
  if (predicate.kind !== 'test' || predicate.subject.kind !== 'setElements' || predicate.subject.quantifier !== 'anyOf')
    return undefined;
  const { set } = predicate.subject;
  const element = `${target.alias}__element`;
  const test = compileTest(sql.ref(`${element}.${set.valueColumn}`), predicate.test, target.dialect);
  const owner = sql.ref(`${element}.${set.ownerColumn}`);
  // An owner holds a value once (the set's primary key): with `=` each matching row is another owner.
  const counted = isEquality(predicate.test) ? sql`count(*)` : sql`count(DISTINCT ${owner})`;
  return sql<{ n: number }>`SELECT ${counted} AS n FROM ${sql.table(set.table)} AS ${sql.id(element)} WHERE ${test}`;
}

const isEquality = (test: ValueTest): boolean => test.kind === 'compare' && test.op === '=';

/**
 * The page of a filter that is one `anyOf(set) = value` and nothing else, listed in id order: the set's (value, owner)
 * index holds the matching owners in that order, so the page reads `offset + limit` of them and joins only those
 * rows, where `id IN (matching owners)` gathers every match first. An owner holds a value once (the set's primary
 * key), so with `=` no owner comes twice; other tests could match one owner through several values.
 */
export function compileIndexPage(predicate: CheckedPredicate, target: CompileTarget): IndexPage | undefined {
  if (predicate.kind !== 'test' || predicate.subject.kind !== 'setElements' || predicate.subject.quantifier !== 'anyOf')
    return undefined;
  if (!isEquality(predicate.test)) return undefined;
  const { set } = predicate.subject;
  const element = `${target.alias}__element`;
  const test = compileTest(sql.ref(`${element}.${set.valueColumn}`), predicate.test, target.dialect);
  const owner = sql.ref(`${element}.${set.ownerColumn}`);
  const listedId = sql.ref(`${target.alias}.${target.idColumn}`);
  return (table, limit, offset) =>
    sql<Record<string, unknown>>`SELECT ${sql.ref(target.alias)}.* FROM ${sql.table(set.table)} AS ${sql.id(element)}
      JOIN ${sql.table(table)} AS ${sql.id(target.alias)} ON ${listedId} = ${owner}
      WHERE ${test} ORDER BY ${owner} ASC LIMIT ${limit} OFFSET ${offset}`;
}

/** Compiles a checked predicate for a query whose listed table is aliased `target.alias`. */
export function compilePredicate(predicate: CheckedPredicate, target: CompileTarget): RawBuilder<SqlBool> {
  return new FilterCompiler(target).predicate(predicate);
}

/** A listed row's column, or a column of another row reached through one of its foreign keys. */
export function columnExpression(alias: string, column: string, via?: Lookup): Fragment {
  if (!via) return sql.ref(`${alias}.${column}`);
  // Bound, not written out: a bare integer in ORDER BY would name a result column. Cast, as PostgreSQL gives a bare
  // parameter no type to compare or sort by.
  if ('value' in via) return sql`CAST(${via.value} AS INTEGER)`;
  if ('existsIn' in via) {
    const row = `${alias}__${via.existsIn}`;
    return sql`(CASE WHEN EXISTS (SELECT 1 FROM ${sql.table(via.existsIn)} AS ${sql.raw(row)} WHERE ${sql.ref(`${row}.${via.ownerColumn}`)} = ${sql.ref(`${alias}.id`)} AND ${sql.ref(`${row}.${column}`)} IS NOT NULL) THEN 1 ELSE 0 END)`;
  }
  const lookup = `${alias}__${via.foreignKey}`;
  return sql`(SELECT ${sql.ref(`${lookup}.${column}`)} FROM ${sql.table(via.table)} AS ${sql.raw(lookup)} WHERE ${sql.ref(`${lookup}.id`)} = ${sql.ref(`${alias}.${via.foreignKey}`)})`;
}
