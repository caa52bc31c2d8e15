// The record of entity changes (issue 31): one row per created, updated or deleted entity, written in the
// transaction that made the change (so a change is recorded exactly when it commits, on whichever instance), with
// who made it, through what, and the entity before and after. The committing process emits its `entityChange`
// events from these rows' values after the commit; the rows are kept for `entityChanges.retention` and listed by
// `GET /edge/management/v1/entity-changes`. `created_at` is when the change was made.
import type { Migration } from './migrate.js';
import { baseColumns } from './schema-parts.js';

export const entityChanges: Migration = {
  version: 23,
  name: 'entity changes',
  statements: [
    `CREATE TABLE entity_changes (
      ${baseColumns},
      change_type TEXT NOT NULL,
      entity_type TEXT NOT NULL,
      entity_id TEXT NOT NULL,
      author_type TEXT NOT NULL,
      author_id TEXT,
      author_name TEXT,
      source_type TEXT NOT NULL,
      source TEXT NOT NULL DEFAULT '{}',
      changed_fields TEXT NOT NULL DEFAULT '[]',
      initial_state TEXT,
      final_state TEXT,
      instance_id TEXT NOT NULL)`,
    `CREATE INDEX entity_changes_created ON entity_changes(created_at)`,
    `CREATE INDEX entity_changes_entity ON entity_changes(entity_id, created_at)`,
  ],
};
