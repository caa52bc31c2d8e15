// Pieces every migration builds tables from, so entity tables and set tables look the same everywhere.

/** Columns every entity table starts with. Timestamps are RFC3339 text with milliseconds, which sorts by time. */
export const baseColumns = `id TEXT PRIMARY KEY NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  tags TEXT NOT NULL DEFAULT '{}',
  is_system INTEGER NOT NULL DEFAULT 0`;

/**
 * A set field's side table: one row per element, indexed by value so anyOf(...) filters do not scan.
 * `valueReferences` makes each element a reference, so the database refuses to delete a referenced row even if
 * no rule caught it first.
 */
export const setTable = (table: string, owner: string, valueReferences?: string): string[] => [
  `CREATE TABLE ${table} (
    entity_id TEXT NOT NULL REFERENCES ${owner}(id) ON DELETE CASCADE,
    value TEXT NOT NULL${valueReferences ? ` REFERENCES ${valueReferences}(id)` : ''},
    PRIMARY KEY (entity_id, value))`,
  `CREATE INDEX ${table}_value ON ${table}(value, entity_id)`,
];
