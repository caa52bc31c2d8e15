// What the management channel's validations select with their filter (upstream's BaseList(filter) of terminators or
// routers): every match of the REST lists' filter language, not a page, unless the filter limits itself. A filter
// that does not parse is the CLI's mistake: it is told (MgmtRequestError), not logged as a failure.
import { listEntities } from '../../crud/entity-store.js';
import { MgmtRequestError } from '../../fabric/mgmt/mgmt-messages.js';
import { checkListQuery } from '../../store/filter/list-query.js';
import { FilterError, type ListQuery, type SymbolTable } from '../../store/filter/filter-types.js';
import type { Store } from '../../store/store.js';
import { router } from '../router/router.definition.js';
import { terminator } from '../terminator/terminator.definition.js';

function query(filter: string, symbols: SymbolTable): ListQuery {
  try {
    // -1: no limit of the list's own (a `limit` in the filter still wins).
    return checkListQuery({ filter, limit: -1 }, { symbols });
  } catch (error) {
    if (error instanceof FilterError) throw new MgmtRequestError(error.message);
    throw error;
  }
}

export function selectTerminatorIds(store: Store): (filter: string) => Promise<string[]> {
  return async (filter) => {
    const page = await store.read((db) => listEntities(db, terminator, query(filter, terminator.symbols)));
    return page.rows.map((row) => String(row.id));
  };
}

export function selectRouters(store: Store): (filter: string) => Promise<{ id: string; name: string }[]> {
  return async (filter) => {
    const page = await store.read((db) => listEntities(db, router, query(filter, router.symbols)));
    return page.rows.map((row) => ({ id: String(row.id), name: String(row.name) }));
  };
}
