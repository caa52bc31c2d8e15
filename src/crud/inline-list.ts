// Lists of things held in memory rather than in a table (the network's links and circuits): the request's filter,
// sort and page applied by the database to rows made from them, exactly as to stored rows.
import type { OperationContext } from '../http/operation.js';
import type { ListQuery, SymbolTable } from '../store/filter/filter-types.js';
import { listInlineRows, type Row } from '../store/queries/entities.js';
import { listQueryFrom } from './list-params.js';
import { ApiError } from '../errors/api-error.js';
import { mustGet } from '../lib/collections.js';

export interface InlinePage<T> {
  /** The items of the page, in order. */
  items: T[];
  query: ListQuery;
  totalCount: number;
}

/**
 * `toRow` gives each item's filterable columns (an `id` among them, unique; plain values only); `symbols` map the
 * public names onto those columns.
 */
export async function pageOfInlineItems<T>(
  context: OperationContext,
  symbols: SymbolTable,
  items: readonly T[],
  toRow: (item: T) => Row,
): Promise<InlinePage<T>> {
  const query = inMemoryWording(() => listQueryFrom(context, symbols));
  const byId = new Map(items.map((item) => [toRow(item), item] as const).map(([row, item]) => [row.id, { row, item }]));
  const rows = [...byId.values()].map(({ row }) => row);
  const page = await context.deps.store.read((db) => listInlineRows(db, rows, query));
  return { items: page.rows.map((found) => mustGet(byId, found.id).item), query, totalCount: page.totalCount };
}

/**
 * Upstream's in-memory stores (storage `objectz`) type a filter's symbols in `ast` TypeTransform, which words an
 * unknown one without the quotes its bolt stores use (`unknown symbol name`, not `unknown symbol 'name'`).
 */
function inMemoryWording<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    const cause = error instanceof ApiError ? error.cause : undefined;
    const unknown = cause && 'message' in cause ? /^unknown symbol '(.*)'$/s.exec(cause.message) : null;
    if (error instanceof ApiError && unknown) throw ApiError.withMessage(error.code, `unknown symbol ${unknown[1]}`);
    throw error;
  }
}
