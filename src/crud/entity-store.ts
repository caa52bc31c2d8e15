// Reads and writes entities of any definition: row ↔ value mapping, set side tables, pages of a list.
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Db } from '../store/store.js';
import type { ListQuery } from '../store/filter/filter-types.js';
import type { EntityDefinition, FieldSpec } from './define-entity.js';
import type { EntityValues } from './entity-rules.js';

type Row = Record<string, unknown>;

export function rowToValues(definition: EntityDefinition, row: Row): EntityValues {
  const values: EntityValues = {
    id: row.id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    tags: parseJson(row.tags) ?? {},
    isSystem: row.is_system === 1,
  };
  for (const [name, spec] of Object.entries(definition.fields)) values[name] = fromColumn(spec, row[spec.column]);
  return values;
}

function fromColumn(spec: FieldSpec, raw: unknown): unknown {
  switch (spec.kind) {
    case 'boolean':
      return raw === 1 || raw === true;
    case 'json':
      return parseJson(raw);
    case 'stringSet': {
      const list = parseJson(raw) as string[] | null;
      return list && list.length > 0 ? list : null;
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
  return [...new Set(value as string[])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

function parseJson(raw: unknown): unknown {
  return typeof raw === 'string' ? JSON.parse(raw) : (raw ?? null);
}

function valuesToRow(definition: EntityDefinition, values: EntityValues): Row {
  const row: Row = {
    id: values.id,
    created_at: values.createdAt,
    updated_at: values.updatedAt,
    tags: JSON.stringify(values.tags ?? {}),
    is_system: values.isSystem ? 1 : 0,
  };
  for (const [name, spec] of Object.entries(definition.fields)) row[spec.column] = toColumn(spec, values[name]);
  return row;
}

export async function findEntity(db: Db, definition: EntityDefinition, id: string): Promise<EntityValues | undefined> {
  const row = (await db.selectFrom(definition.table).selectAll().where('id', '=', id).executeTakeFirst());
  return row ? rowToValues(definition, row) : undefined;
}

/** Whether another entity of the definition already has the name. */
export async function isNameTaken(db: Db, definition: EntityDefinition, name: string, exceptId: string): Promise<boolean> {
  const column = definition.fields.name?.column ?? 'name';
  const row = await db.selectFrom(definition.table).select('id').where(column, '=', name).where('id', '!=', exceptId).executeTakeFirst();
  return row !== undefined;
}

export async function insertEntity(tx: Db, definition: EntityDefinition, values: EntityValues): Promise<void> {
  await tx.insertInto(definition.table).values(valuesToRow(definition, values)).execute();
  await writeSets(tx, definition, values, false);
}

export async function updateEntity(tx: Db, definition: EntityDefinition, values: EntityValues): Promise<void> {
  const { id: _id, created_at: _created, ...row } = valuesToRow(definition, values);
  await tx.updateTable(definition.table).set(row).where('id', '=', values.id as string).execute();
  await writeSets(tx, definition, values, true);
}

export async function deleteEntity(tx: Db, definition: EntityDefinition, id: string): Promise<void> {
  // Set side tables reference the entity with ON DELETE CASCADE.
  await tx.deleteFrom(definition.table).where('id', '=', id).execute();
}

async function writeSets(tx: Db, definition: EntityDefinition, values: EntityValues, replace: boolean): Promise<void> {
  for (const [name, spec] of Object.entries(definition.fields)) {
    if (spec.kind !== 'stringSet' || !spec.setTable) continue;
    if (replace) await tx.deleteFrom(spec.setTable).where('entity_id', '=', values.id as string).execute();
    const list = normaliseSet(values[name]);
    if (list.length > 0) {
      await tx.insertInto(spec.setTable).values(list.map((value) => ({ entity_id: values.id, value }))).execute();
    }
  }
}

export interface Page {
  rows: EntityValues[];
  totalCount: number;
}

/** One page of a list; `scope` narrows it beyond the filter (a parent's children, the caller's own rows). */
export async function listEntities(db: Db, definition: EntityDefinition, query: ListQuery, scope?: RawBuilder<SqlBool>): Promise<Page> {
  let from = db.selectFrom(`${definition.table} as t`).where(query.where);
  if (scope) from = from.where(scope);
  const counted = await from.select(sql<number>`count(*)`.as('n')).executeTakeFirst();
  let select = from.selectAll('t');
  for (const order of query.orderBy) select = select.orderBy(order);
  // SQLite needs a LIMIT before an OFFSET; -1 means no limit there.
  select = select.limit(query.limit === 'none' ? -1 : query.limit).offset(query.offset);
  const rows = (await select.execute()) as Row[];
  return { rows: rows.map((row) => rowToValues(definition, row)), totalCount: Number(counted?.n ?? 0) };
}

/** The distinct values of one set field across all entities, e.g. every identity role attribute in use. */
export async function listSetValues(db: Db, definition: EntityDefinition, field: string): Promise<string[]> {
  const table = definition.fields[field]?.setTable;
  if (!table) throw new Error(`${definition.type}.${field} is not a set field`);
  const rows = await db.selectFrom(table).select('value').distinct().orderBy('value').execute();
  return rows.map((row) => row.value as string);
}
