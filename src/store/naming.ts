// How the store names columns and side tables from API words: the one place the naming rules live.
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
