// How the store names columns and side tables from API words: the one place the naming rules live.
import type { FilterSymbol, SymbolTable } from './filter/filter-types.js';
import type { TableName } from './store.js';

/** `roleAttributes` → `role_attributes`; `primary.updb.maxAttempts` → `primary_updb_max_attempts`. */
export function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`).replaceAll('.', '_');
}

/** identities → identity, service_policies → service_policy: the prefix of an entity's side tables. */
function singularTable(table: string): string {
  return table.endsWith('ies') ? `${table.slice(0, -3)}y` : table.replace(/s$/, '');
}

/**
 * The side table of a set column (one row per element) or a policy's membership table: `<singular table>_<suffix>`,
 * as the migrations name them (`identity_role_attributes`, `service_policy_identities`).
 */
export function sideTable(table: TableName, suffix: string): TableName {
  // The schema type lists every table, but cannot follow a concatenation; the migrations create each one named so.
  return `${singularTable(table)}_${suffix}` as TableName;
}

/** The filter symbols every entity has, on the columns every entity table has. */
export const baseSymbols: Readonly<Record<string, FilterSymbol>> = {
  id: { kind: 'column', type: 'string', column: 'id' },
  createdAt: { kind: 'column', type: 'datetime', column: 'created_at' },
  updatedAt: { kind: 'column', type: 'datetime', column: 'updated_at' },
  tags: { kind: 'map', column: 'tags' },
  isSystem: { kind: 'column', type: 'bool', column: 'is_system' },
};

/** The filter symbol of a set field: its side table's rows, one per element. */
export const setSymbol = (table: TableName): FilterSymbol => ({
  kind: 'set',
  type: 'string',
  table,
  ownerColumn: 'entity_id',
  valueColumn: 'value',
});

/** A set field's distinct values listed as entities (`/identity-role-attributes`): each value is the `id`. */
export const setValues: { column: string; symbols: SymbolTable } = {
  column: 'value',
  symbols: { id: { kind: 'column', type: 'string', column: 'value' } },
};
