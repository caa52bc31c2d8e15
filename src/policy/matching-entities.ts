// The entities a role list selects (reference §1.3): `@id`s, `#all`, and attributes all-of or any-of — as SQL.
import { sql, type RawBuilder } from 'kysely';
import { entityKinds, type EntityKindName } from './policy-kinds.js';
import type { ParsedRoles } from './roles.js';

/**
 * `SELECT id ...` of every entity of `kind` the roles select. Each part is an index lookup (ids by primary key,
 * attributes through the attribute table's (value, entity_id) index) except `#all`, which selects everything.
 */
export function matchingEntities(kind: EntityKindName, roles: ParsedRoles, semantic: unknown): RawBuilder<unknown> {
  const entity = entityKinds[kind];
  const table = sql.table(entity.table);
  const restrict = 'where' in entity ? sql` AND ${sql.raw(entity.where)}` : sql``;
  const parts: RawBuilder<unknown>[] = [];
  if (roles.all) parts.push(sql`SELECT id FROM ${table} WHERE 1 = 1${restrict}`);
  if (roles.ids.length > 0) parts.push(sql`SELECT id FROM ${table} WHERE id IN (${sql.join(roles.ids)})${restrict}`);
  const attributes = [...new Set(roles.attributes)];
  if (attributes.length > 0) {
    const attributeTable = sql.table(entity.attributeTable);
    const values = sql.join(attributes);
    parts.push(
      semantic === 'AnyOf'
        ? sql`SELECT DISTINCT entity_id AS id FROM ${attributeTable} WHERE value IN (${values})`
        : sql`SELECT entity_id AS id FROM ${attributeTable} WHERE value IN (${values}) GROUP BY entity_id HAVING count(*) = ${attributes.length}`,
    );
  }
  // An empty role list selects nothing.
  return parts.length > 0 ? sql.join(parts, sql` UNION `) : sql`SELECT NULL AS id WHERE 1 = 0`;
}
