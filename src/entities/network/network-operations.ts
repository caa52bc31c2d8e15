// List and detail of what the network holds in memory (links, circuits: deps.network), shared by both: a list is
// filtered, sorted and paged in the database over the items' rows, as every other list; neither carries
// filterable fields nor version fields in its meta (upstream's fabric API passes none).
import type { OperationContext, OperationHandler } from '../../http/operation.js';
import type { ById } from '../../crud/crud-handlers.js';
import { envelopeWriter } from '../../http/envelope.js';
import { ApiError } from '../../errors/api-error.js';
import { pageOfInlineItems } from '../../crud/inline-list.js';
import type { SymbolTable } from '../../store/filter/filter-types.js';
import type { Row } from '../../store/queries/entities.js';

const writer = envelopeWriter(undefined, false);

export interface NetworkListing<T> {
  /** The entity type named by a 404. */
  type: string;
  symbols: SymbolTable;
  view: (context: OperationContext) => { list(): Promise<readonly T[]>; get(id: string): Promise<T | undefined> };
  /** The row the filter reads, keyed by the symbols' columns. */
  row: (item: T) => Row;
  render: (context: OperationContext, items: readonly T[]) => Promise<Record<string, unknown>[]>;
}

export function networkListAndDetail<T>(listing: NetworkListing<T>): {
  list: OperationHandler;
  detail: OperationHandler<ById>;
} {
  const { type, symbols, view, row, render } = listing;
  return {
    list: {
      access: 'admin',
      async handle(context) {
        const page = await pageOfInlineItems(context, symbols, await view(context).list(), row);
        const data = await render(context, page.items);
        const { limit, offset } = page.query;
        return {
          status: 200,
          raw: writer.list(data, { limit, offset, totalCount: page.totalCount }),
          contentType: 'application/json',
        };
      },
    },
    detail: {
      access: 'admin',
      async handle(context) {
        const { id } = context.params;
        const item = await view(context).get(id);
        // One item renders as one entity.
        const [data] = item ? await render(context, [item]) : [];
        if (!data) throw ApiError.notFound(type, id);
        return { status: 200, raw: writer.one(data), contentType: 'application/json' };
      },
    },
  };
}
