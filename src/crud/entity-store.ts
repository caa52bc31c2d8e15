// Reads and writes entities of any definition: row ↔ value mapping here, the SQL in the store's entity queries.
import type { Db } from '../store/store.js';
import type { ListQuery } from '../store/filter/filter-types.js';
import {
  deleteRow,
  findRow,
  insertRow,
  isValueTaken,
  listRows,
  listSetValues as listStoredSetValues,
  updateRow,
  type EntityRow,
  type Row,
  type SetRows,
} from '../store/queries/entities.js';
import type { Scope } from '../store/queries/scopes.js';
import type { EntityDefinition, EntityValues, FieldSpec } from './define-entity.js';
import { isJsonObject } from '../lib/object-path.js';

export function rowToValues<V extends EntityValues>(definition: EntityDefinition<V>, row: Row): V {
  const tags = parseJson(row.tags);
  const values: Record<string, unknown> = {
    id: row.id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    tags: isJsonObject(tags) ? tags : {},
    isSystem: row.is_system === 1,
  };
  for (const [name, spec] of fieldsOf(definition)) values[name] = fromColumn(spec, row[spec.column]);
  // Every field of the definition was read from its column by its kind, which is what `ValuesOf` types.
  return values as V;
}

/** A definition's fields as entries, listed once rather than for every row read. */
const fieldEntries = new WeakMap<EntityDefinition<never>, [string, FieldSpec][]>();

function fieldsOf(definition: EntityDefinition<never>): [string, FieldSpec][] {
  let entries = fieldEntries.get(definition);
  if (!entries) fieldEntries.set(definition, (entries = Object.entries(definition.fields)));
  return entries;
}

function fromColumn(spec: FieldSpec, raw: unknown): unknown {
  switch (spec.kind) {
    case 'boolean':
      return raw === 1 || raw === true;
    case 'json':
      return parseJson(raw);
    case 'stringSet': {
      const list = parseJson(raw);
      return Array.isArray(list) && list.length > 0 ? list : null;
    }
    default:
      return raw ?? null;
  }
}

function toColumn(spec: FieldSpec, value: unknown): unknown {
  switch (spec.kind) {
    case 'boolean':
      return value ? 1 : 0;
    case 'json':
      return value === null || value === undefined ? null : JSON.stringify(value);
    case 'stringSet': {
      const list = normaliseSet(value);
      return list.length > 0 ? JSON.stringify(list) : null;
    }
    default:
      return value ?? null;
  }
}

/** Sets are stored and rendered de-duplicated and sorted byte-wise, as upstream's bolt buckets are. */
export function normaliseSet(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  const strings = value.filter((element): element is string => typeof element === 'string');
  return [...new Set(strings)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

function parseJson(raw: unknown): unknown {
  return typeof raw === 'string' ? JSON.parse(raw) : (raw ?? null);
}

function valuesToRow<V extends EntityValues>(definition: EntityDefinition<V>, values: V): EntityRow {
  const row: EntityRow = {
    id: values.id,
    created_at: values.createdAt,
    updated_at: values.updatedAt,
    // Absent when a rule's own write gives none (a session's values).
    tags: JSON.stringify(values.tags ?? {}),
    is_system: values.isSystem ? 1 : 0,
  };
  for (const [name, spec] of Object.entries(definition.fields)) row[spec.column] = toColumn(spec, values[name]);
  return row;
}

/** The entity with this id; with a `scope`, only if it is in it too (the caller's own). */
export async function findEntity<V extends EntityValues>(
  db: Db,
  definition: EntityDefinition<V>,
  id: string,
  scope?: Scope,
): Promise<V | undefined> {
  const row = await findRow(db, definition.table, id, scope);
  return row ? rowToValues(definition, row) : undefined;
}

/** Whether another entity of the definition already has the name. */
export async function isNameTaken(
  db: Db,
  definition: EntityDefinition,
  name: string,
  exceptId: string,
): Promise<boolean> {
  const column = definition.fields.name?.column ?? 'name';
  return isValueTaken(db, definition.table, column, name, exceptId);
}

/** Inserts the entity; `returning`: answers it as stored (as findEntity would read it) from the same statement. */
export async function insertEntity<V extends EntityValues>(
  tx: Db,
  definition: EntityDefinition<V>,
  values: V,
  returning = false,
): Promise<V | undefined> {
  const row = valuesToRow(definition, values);
  const stored = await insertRow(tx, definition.table, row, setRows(definition, values), returning);
  return stored ? rowToValues(definition, stored) : undefined;
}

export async function updateEntity<V extends EntityValues>(
  tx: Db,
  definition: EntityDefinition<V>,
  values: V,
): Promise<void> {
  await updateRow(tx, definition.table, valuesToRow(definition, values), setRows(definition, values));
}

export async function deleteEntity(tx: Db, definition: EntityDefinition, id: string): Promise<void> {
  await deleteRow(tx, definition.table, id);
}

/** Each set field's elements, for its side table (one row per element, which makes set filters use an index). */
function setRows<V extends EntityValues>(definition: EntityDefinition<V>, values: V): SetRows[] {
  return Object.entries(definition.fields).flatMap(([name, spec]) =>
    spec.kind === 'stringSet' && spec.setTable ? [{ table: spec.setTable, values: normaliseSet(values[name]) }] : [],
  );
}

export interface Page<V extends EntityValues = EntityValues> {
  rows: V[];
  totalCount: number;
}

/** One page of a list; `scope` narrows it beyond the filter (a parent's children, the caller's own rows). */
export async function listEntities<V extends EntityValues>(
  db: Db,
  definition: EntityDefinition<V>,
  query: ListQuery,
  scope?: Scope,
): Promise<Page<V>> {
  const page = await listRows(db, definition.table, query, scope);
  return { rows: page.rows.map((row) => rowToValues(definition, row)), totalCount: page.totalCount };
}

/** The distinct values of one set field across all entities, e.g. every identity role attribute in use. */
export async function listSetValues(
  db: Db,
  definition: EntityDefinition,
  field: string,
  query?: ListQuery,
  isPaged = false,
): Promise<string[]> {
  const table = definition.fields[field]?.setTable;
  if (!table) throw new Error(`${definition.type}.${field} is not a set field`);
  return listStoredSetValues(db, table, query, isPaged);
}
