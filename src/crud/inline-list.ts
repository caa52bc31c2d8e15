// Lists of things held in memory rather than in a table (the network's links and circuits): the request's filter,
// sort and page applied by the database to rows made from them, exactly as to stored rows.
import type { OperationContext } from '../http/operation.js';
import type { ListQuery, SymbolTable } from '../store/filter/filter-types.js';
import { listInlineRows, type Row } from '../store/queries/entities.js';
import { listQueryFrom } from './list-params.js';

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
  const query = listQueryFrom(context, symbols);
  const byId = new Map(items.map((item) => [toRow(item), item] as const).map(([row, item]) => [row.id, { row, item }]));
  const rows = [...byId.values()].map(({ row }) => row);
  const page = await context.deps.store.read((db) => listInlineRows(db, rows, query));
  return { items: page.rows.map((found) => byId.get(found.id)!.item), query, totalCount: page.totalCount };
}
