// What every imported row shares: upstream's id, timestamps, tags and system flag, kept verbatim, and the column
// forms the store keeps sets and JSON in.
import { normaliseSet } from '../../crud/entity-store.js';
import { insertImportedRows, type ImportedKind, type ImportedRow } from '../../store/queries/upstream-import.js';
import type { Db } from '../../store/store.js';
import type { StoredEntity } from '../bbolt/stored-entity.js';
import type { JsonValue } from '../bbolt/boltz-values.js';

/** Rows of one kind, in the order they are inserted, with the typed insert of a slice of them. */
export interface KindRows {
  kind: ImportedKind;
  rows: readonly object[];
  insert(tx: Db, from: number, to: number): Promise<void>;
}

export function kindRows<K extends ImportedKind>(kind: K, rows: ImportedRow<K>[]): KindRows {
  return { kind, rows, insert: (tx, from, to) => insertImportedRows(tx, kind, rows.slice(from, to)) };
}

/** What a mapper could not carry over, said once per kind with a count. */
export type Dropped = Map<string, number>;

export function drop(dropped: Dropped, what: string): void {
  dropped.set(what, (dropped.get(what) ?? 0) + 1);
}

export interface BaseColumns {
  id: string;
  created_at: string;
  updated_at: string;
  tags: string;
  is_system: number;
}

/** A row that never had its timestamps (upstream writes both on create) still needs some: the import's time. */
export function baseColumns(entity: StoredEntity, importedAt: string): BaseColumns {
  const createdAt = entity.time('createdAt') ?? importedAt;
  return {
    id: entity.id,
    created_at: createdAt,
    updated_at: entity.time('updatedAt') ?? createdAt,
    tags: JSON.stringify(entity.map('tags')),
    is_system: entity.bool('isSystem') ? 1 : 0,
  };
}

/** A set column: de-duplicated, sorted, or null when empty (the store's form for sets, crud/entity-store.ts). */
export function setColumn(values: readonly string[]): string | null {
  const set = normaliseSet(values);
  return set.length > 0 ? JSON.stringify(set) : null;
}

/** A JSON column for a map that may be absent: null when upstream stored none. */
export function mapColumn(entity: StoredEntity, name: string): string | null {
  return entity.has(name) ? JSON.stringify(entity.map(name)) : null;
}

export const flag = (value: boolean): number => (value ? 1 : 0);

/** Upstream's hosting precedences are int32 (0 default, 1 required, 2 failed); the store keeps the names. */
export function precedenceName(value: JsonValue | undefined): string {
  return value === 1 ? 'required' : value === 2 ? 'failed' : 'default';
}
