// Reads filter / limit / offset / sort from a request and compiles them against an entity's public symbols.
import { ApiError } from '../errors/api-error.js';
import { checkListQuery } from '../store/filter/list-query.js';
import { FilterError, type ListQuery, type SymbolTable } from '../store/filter/filter-types.js';
import type { OperationContext } from '../http/operation.js';

export function listQueryFrom(context: OperationContext, symbols: SymbolTable, idColumn = 'id'): ListQuery {
  try {
    return checkListQuery(
      {
        filter: stringParam(context, 'filter'),
        limit: integerParam(context, 'limit'),
        offset: integerParam(context, 'offset'),
        sort: stringParam(context, 'sort'),
      },
      { idColumn, symbols },
    );
  } catch (error) {
    if (error instanceof FilterError) {
      throw ApiError.withMessage(error.kind === 'sort' ? 'INVALID_SORT_IDENTIFIER' : 'INVALID_FILTER', error.message);
    }
    throw error;
  }
}

function stringParam(context: OperationContext, name: string): string | undefined {
  const declared = context.query[name];
  if (typeof declared === 'string') return declared;
  const raw = context.rawQuery[name];
  return Array.isArray(raw) ? raw[0] : raw;
}

/**
 * Declared integer parameters arrive validated; sub-lists read them from the raw query, where upstream writes
 * INVALID_PAGINATION and then fails with a 500 — we stop at the 400.
 */
function integerParam(context: OperationContext, name: string): number | undefined {
  const declared = context.query[name];
  if (typeof declared === 'number') return declared;
  const raw = stringParam(context, name);
  if (raw === undefined || raw === '') return undefined;
  if (!/^-?\d+$/.test(raw)) throw ApiError.withMessage('INVALID_PAGINATION', `${name} must be an integer: "${raw}"`);
  return Number(raw);
}
