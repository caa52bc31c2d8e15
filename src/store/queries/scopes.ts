// List scopes: conditions that narrow an entity list beyond the request's filter (a parent's children, the rows
// a policy links, the caller's own rows). Domain code composes them; only the store turns them into SQL.
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { TableName } from '../store.js';

declare const scopeBrand: unique symbol;

/** A condition on the listed rows; opaque outside the store. */
export interface Scope {
  readonly [scopeBrand]: true;
}

/** The alias the listed table has in every list query (src/store/queries/entities.ts). */
export const LISTED = 't';

const scope = (condition: RawBuilder<SqlBool>) => condition as unknown as Scope;
/** The SQL of a scope, inside the store. */
export const scopeSql = (value: Scope) => value as unknown as RawBuilder<SqlBool>;

const listed = (column: string) => sql.ref(`${LISTED}.${column}`);

export const everyRow: Scope = scope(sql<SqlBool>`1 = 1`);
export const noRow: Scope = scope(sql<SqlBool>`1 = 0`);

/** Rows whose `column` holds `value`. */
export function columnIs(column: string, value: string | number): Scope {
  return scope(sql<SqlBool>`${listed(column)} = ${value}`);
}

/** Rows that pass every scope. */
export function allOf(...scopes: Scope[]): Scope {
  return scopes.length === 0 ? everyRow : scope(sql<SqlBool>`(${sql.join(scopes.map(scopeSql), sql` AND `)})`);
}

/** Rows that pass any of the scopes (none: no row). */
export function anyOf(scopes: readonly Scope[]): Scope {
  return scopes.length === 0 ? noRow : scope(sql<SqlBool>`(${sql.join(scopes.map(scopeSql), sql` OR `)})`);
}

/** Rows with one of these ids. */
export function idIn(ids: readonly string[]): Scope {
  return ids.length === 0 ? noRow : scope(sql<SqlBool>`${listed('id')} IN (${sql.join(ids)})`);
}

/** A link table rows of one entity reach rows of another through (membership, pair and join tables). */
export interface LinkTable {
  table: TableName;
  /** The column holding the parent's id, and the one holding the listed entity's. */
  parentColumn: string;
  childColumn: string;
}

/** Rows linked to `parentId` through `link`; with `positiveCount`, only link rows where that count is above 0. */
export function linkedTo(link: LinkTable, parentId: string, positiveCount?: string): Scope {
  const rows = sql`SELECT ${sql.ref(link.childColumn)} FROM ${sql.table(link.table)} WHERE ${sql.ref(link.parentColumn)} = ${parentId}`;
  const counted = positiveCount ? sql`${rows} AND ${sql.ref(positiveCount)} > 0` : rows;
  return scope(sql<SqlBool>`${listed('id')} IN (${counted})`);
}

/**
 * Rows holding role attributes (a set field's side table): every one of them (`AllOf`) or any (`AnyOf`).
 */
export function withAttributes(setTable: TableName, attributes: readonly string[], semantic: 'AllOf' | 'AnyOf'): Scope {
  if (attributes.length === 0) return noRow;
  const holders = sql`SELECT entity_id FROM ${sql.table(setTable)} WHERE value IN (${sql.join(attributes)})`;
  if (semantic === 'AnyOf') return scope(sql<SqlBool>`${listed('id')} IN (${holders})`);
  return scope(sql<SqlBool>`${listed('id')} IN (${holders} GROUP BY entity_id HAVING count(*) = ${attributes.length})`);
}
