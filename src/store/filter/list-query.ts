// The public entry of the filter module: filter, limit, offset and sort of a list request → ListQuery → SQL.
import { sql, type RawBuilder } from 'kysely';
import { LruMap } from '../../lib/lru-map.js';
import { checkFilter } from './check-filter.js';
import { columnExpression, compileIndexCount, compileIndexPage, compilePredicate } from './compile-filter.js';
import {
  FilterError,
  type CheckedSortField,
  type FilterQuery,
  type ListQuery,
  type ListQuerySql,
  type SymbolTable,
} from './filter-types.js';
import { parseFilter } from './parse-filter.js';
import type { FilterSqlDialect } from './sql-dialect.js';

/** Paging constants of ziti `controller/models/base_model.go` and `internal/routes/query_options.go`. */
const DEFAULT_LIMIT = 10;
const MAX_LIMIT = 500;
const MAX_OFFSET = 100_000;
const MAX_SORT_FIELDS = 5;

export interface ListParams {
  filter?: string | undefined;
  limit?: number | undefined;
  offset?: number | undefined;
  sort?: string | undefined;
}

export interface ListTarget {
  /** Id column of the listed table, default 'id': the sort tie-breaker and the owner of set rows. */
  idColumn?: string;
  /** Public symbols of the listed entity type. */
  symbols: SymbolTable;
}

/**
 * Checks a list request (docs/reference/http-conventions.md §4.2): the filter's own sort/skip/limit clauses win over
 * the parameters. Throws FilterError: kind 'filter' for the filter, 'sort' for the `sort` parameter. The result holds
 * no SQL: the store compiles it for its own dialect (listQuerySql), so every refusal happens before the database.
 */
export function checkListQuery(params: ListParams, target: ListTarget): ListQuery {
  const idColumn = target.idColumn ?? 'id';
  // The filter text, the sort parameter and the id column decide everything but the page: they name the shape.
  const shape = JSON.stringify([params.filter ?? '', params.sort ?? '', idColumn]);
  let checked = checkedFilters(target.symbols).get(shape);
  if (!checked) {
    const query = parseFilter(params.filter ?? '');
    const filter = checkFilter(query, target.symbols);
    const sort = query.sort === undefined && params.sort ? checkSortParam(params.sort, target.symbols) : filter.sort;
    checked = { query, predicate: filter.predicate, sort: sort ?? [] };
    checkedFilters(target.symbols).set(shape, checked);
  }
  return { shape, predicate: checked.predicate, sort: checked.sort, idColumn, ...effectivePage(checked.query, params) };
}

interface CheckedFilter {
  query: FilterQuery;
  predicate: ListQuery['predicate'];
  sort: CheckedSortField[];
}

/** Filters checked before, per symbol table (one per entity type), by filter text: clients repeat theirs. */
const checkedByTable = new WeakMap<SymbolTable, LruMap<string, CheckedFilter>>();
const CHECKED_FILTERS_PER_TABLE = 500;

function checkedFilters(symbols: SymbolTable): LruMap<string, CheckedFilter> {
  let filters = checkedByTable.get(symbols);
  if (!filters) {
    filters = new LruMap(CHECKED_FILTERS_PER_TABLE);
    checkedByTable.set(symbols, filters);
  }
  return filters;
}

/** A checked list query as SQL for a query whose listed table is aliased `alias`. */
export function listQuerySql(query: ListQuery, alias: string, dialect: FilterSqlDialect): ListQuerySql {
  const target = { alias, idColumn: query.idColumn, dialect };
  const indexCount = compileIndexCount(query.predicate, target);
  // Listed by id alone (no sort asked): the page may come from the set's index in that order.
  const indexPage = query.sort.length === 0 ? compileIndexPage(query.predicate, target) : undefined;
  return {
    where: compilePredicate(query.predicate, target),
    orderBy: orderBy(query.sort, alias, query.idColumn),
    indexCount,
    indexPage,
  };
}

/** The `sort` parameter is parsed as `true sort by <sort>` (as upstream does); only its sort fields are used. */
function checkSortParam(sort: string, symbols: SymbolTable): CheckedSortField[] | undefined {
  try {
    return checkFilter(parseFilter(`true sort by ${sort}`), symbols).sort;
  } catch (error) {
    if (error instanceof FilterError) throw new FilterError('sort', error.message);
    throw error;
  }
}

/** Missing values sort first when ascending, as upstream; written out so PostgreSQL agrees with SQLite. */
function orderBy(fields: CheckedSortField[], alias: string, idColumn: string): RawBuilder<unknown>[] {
  const items = fields.slice(0, MAX_SORT_FIELDS).map(({ column, via, ascending }) => {
    const direction = ascending ? sql`ASC NULLS FIRST` : sql`DESC NULLS LAST`;
    return sql`${columnExpression(alias, column, via)} ${direction}`;
  });
  return [...items, sql`${sql.ref(`${alias}.${idColumn}`)} ASC`];
}

function effectivePage(query: FilterQuery, params: ListParams): Pick<ListQuery, 'offset' | 'limit'> {
  let limit = query.limit;
  let skip = query.skip;
  if (params.limit !== undefined || params.offset !== undefined) {
    limit ??= params.limit ?? 0;
    skip ??= params.offset;
  }
  return { limit: normaliseLimit(limit), offset: normaliseOffset(skip) };
}

function normaliseLimit(requested: number | undefined): number | 'none' {
  const limit = requested === undefined ? 0 : Math.trunc(requested);
  if (limit === -1) return 'none';
  if (limit === 0 || limit < -1) return DEFAULT_LIMIT;
  return Math.min(limit, MAX_LIMIT);
}

function normaliseOffset(requested: number | undefined): number {
  const skip = requested === undefined ? 0 : Math.trunc(requested);
  return skip < 0 ? 0 : Math.min(skip, MAX_OFFSET);
}
