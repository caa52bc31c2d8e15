// Shared types of the ZitiQL filter module: symbol tables, the parsed syntax tree, the checked tree the compiler
// reads, the public result and its error (one module, so the filter stages import it and not each other).
import type { RawBuilder, SqlBool } from 'kysely';

/** Value type of a filterable symbol, as stored (see `sql-dialect.ts` for the storage conventions). */
export type SymbolType = 'string' | 'number' | 'bool' | 'datetime';

/** How one public symbol of a listed entity maps onto storage. */
export type FilterSymbol =
  /** A column of the listed table. */
  | { kind: 'column'; type: SymbolType; column: string; via?: Lookup }
  /** A set stored one row per element in `table`, linked to the entity through `ownerColumn`. */
  | { kind: 'set'; type: SymbolType; table: string; ownerColumn: string; valueColumn: string }
  /** A JSON object column (tags): `tags.<key>` takes its type from the literal it is compared with. */
  | { kind: 'map'; column: string };

/**
 * Where a column symbol's value comes from when it is not the listed table's column: a column of another table
 * reached through a foreign key of the listed row, e.g. a terminator's `service.name`
 * (`(SELECT <table>.<column> FROM <table> WHERE <table>.id = <alias>.<foreignKey>)`), or a value every row has and
 * none stores; or, as a 0/1 boolean, whether a row of `existsIn` owned by the listed row (`ownerColumn` = its id)
 * has the symbol's column set, e.g. an edge router's `connected` (its presence row names the instance holding it).
 */
export type Lookup =
  { table: string; foreignKey: string } | { value: number } | { existsIn: string; ownerColumn: string };

/** The public symbols of one entity type; any other name is an unknown symbol. */
export type SymbolTable = Readonly<Record<string, FilterSymbol>>;

/**
 * A filter or sort the caller must reject. `kind` 'filter' answers 400 INVALID_FILTER,
 * 'sort' answers 400 INVALID_SORT_IDENTIFIER; the message is the cause message of
 * docs/reference/http-conventions.md §5.9.
 */
export class FilterError extends Error {
  constructor(
    readonly kind: 'filter' | 'sort',
    message: string,
  ) {
    super(message);
    this.name = 'FilterError';
  }
}

/** A checked list request: predicate, order and the effective page, in no SQL dialect yet. */
export interface ListQuery {
  /** Names everything but the page (filter, sort, id column): list queries compile once per shape and table. */
  shape: string;
  predicate: CheckedPredicate;
  /** Sort fields before the tie-breaker (at most five are used). */
  sort: CheckedSortField[];
  /** The listed table's id column: the sort tie-breaker and the owner of set rows. */
  idColumn: string;
  /** Effective number of rows to skip. */
  offset: number;
  /** Effective page size; 'none' means unlimited. */
  limit: number | 'none';
}

/** A list request as SQL for one dialect. */
export interface ListQuerySql {
  where: RawBuilder<SqlBool>;
  /** Complete ORDER BY items including direction; `id ASC` is always the last one. */
  orderBy: RawBuilder<unknown>[];
  /**
   * `SELECT count(…) AS n …` of the matches read from an index alone, when the filter allows it (one set test):
   * the count of a list with no other condition.
   */
  indexCount?: RawBuilder<{ n: number }>;
  /**
   * The page (`SELECT <alias>.* …` of `table`) read in id order from a set's index, when the filter and sort allow it.
   */
  indexPage?: IndexPage;
}

/** Builds a page of `table` (aliased as the list query's alias) with the given LIMIT fragment and OFFSET value. */
export type IndexPage = (
  table: string,
  limit: RawBuilder<unknown>,
  offset: unknown,
) => RawBuilder<Record<string, unknown>>;

export type Literal =
  | { kind: 'string'; value: string }
  | { kind: 'number'; value: number }
  /**
   * `iso` is the instant truncated to whole milliseconds, in the stored form; `hasSubMillis` tells whether digits were
   * dropped.
   */
  | { kind: 'datetime'; iso: string; hasSubMillis: boolean; source: string }
  | { kind: 'bool'; value: boolean }
  | { kind: 'null' };

export type CompareOp = '=' | '!=' | '<' | '<=' | '>' | '>=';

/** `count(S)` / `isEmpty(S)` take a set symbol or, syntactically, a sub-query `from S where <query>`. */
export interface SetOperand {
  symbol: string;
  subquery?: FilterQuery;
}

/** Left-hand side of a comparison. */
export type Operand =
  | { kind: 'symbol'; name: string }
  | { kind: 'quantified'; quantifier: 'anyOf' | 'allOf'; name: string }
  | { kind: 'count'; set: SetOperand };

export type Predicate =
  | { kind: 'and' | 'or'; operands: Predicate[] }
  | { kind: 'not'; operand: Predicate }
  | { kind: 'constant'; value: boolean }
  | { kind: 'bareSymbol'; name: string }
  | { kind: 'isEmpty'; set: SetOperand }
  | { kind: 'compare'; lhs: Operand; op: CompareOp; value: Literal }
  | { kind: 'contains'; lhs: Operand; negated: boolean; ignoreCase: boolean; value: Literal }
  | { kind: 'in'; lhs: Operand; negated: boolean; values: Literal[] }
  | { kind: 'between'; lhs: Operand; negated: boolean; lower: Literal; upper: Literal };

export interface SortField {
  name: string;
  ascending: boolean;
}

/** A parsed filter: clauses that were absent are undefined. `limit` -1 means `limit none`. */
export interface FilterQuery {
  predicate: Predicate;
  sort?: SortField[];
  skip?: number;
  limit?: number;
}

export interface SetSymbolRef {
  name: string;
  type: SymbolType;
  table: string;
  ownerColumn: string;
  valueColumn: string;
}

/** How a JSON map value is read: only values of that JSON type count, anything else is absent. */
export type MapValueKind = 'string' | 'number' | 'bool' | 'any';

/** The SQL value a test applies to. */
export type Subject =
  | { kind: 'column'; column: string; via?: Lookup }
  | { kind: 'mapValue'; column: string; keys: string[]; as: MapValueKind }
  | { kind: 'setElements'; quantifier: 'anyOf' | 'allOf'; set: SetSymbolRef }
  | { kind: 'setCount'; set: SetSymbolRef };

export type Scalar = string | number;

/** A test on one value; absent (NULL) values fail every test except the negated ones, as upstream. */
export type ValueTest =
  | { kind: 'compare'; op: CompareOp; value: Scalar }
  | { kind: 'contains'; negated: boolean; ignoreCase: boolean; text: string; subjectAsText: boolean }
  | { kind: 'in'; negated: boolean; values: Scalar[] }
  | { kind: 'between'; negated: boolean; lower: Scalar; upper: Scalar }
  | { kind: 'isNull'; negated: boolean }
  /** A bool value is true or not; an absent bool counts as false. */
  | { kind: 'isTrue'; expected: boolean };

export type CheckedPredicate =
  | { kind: 'and' | 'or'; operands: CheckedPredicate[] }
  | { kind: 'not'; operand: CheckedPredicate }
  | { kind: 'constant'; value: boolean }
  | { kind: 'isEmpty'; set: SetSymbolRef }
  | { kind: 'test'; subject: Subject; test: ValueTest };

export interface CheckedSortField {
  column: string;
  via?: Lookup;
  ascending: boolean;
}
