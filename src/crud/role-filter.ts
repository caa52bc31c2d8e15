// The `roleFilter` / `roleSemantic` list parameters: narrow a list to the entities a role expression selects.
import { ApiError } from '../errors/api-error.js';
import { anyOf, everyRow, idIn, withAttributes, type Scope } from '../store/queries/scopes.js';
import type { OperationContext } from '../http/operation.js';
import type { ListOptions } from './crud-handlers.js';
import type { EntityDefinition } from './define-entity.js';

const SEMANTICS = ['AllOf', 'AnyOf'] as const;

function queryValues(context: OperationContext, name: string): string[] {
  const value = context.query[name] ?? context.rawQuery[name];
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map(String);
}

/**
 * A list scope from repeated `roleFilter` values in policy syntax (ziti `db/base_store.go`
 * `getRoleAttributesCursorProvider`): `#attr` values match through the set field's side table, all of them
 * (`AllOf`, the default) or any (`AnyOf`); `@id` values are added whatever the semantic. `#all` has no special
 * meaning here. Upstream answers 500 for an unprefixed value or an unknown semantic; we answer 400.
 */
export function roleFilterScope(
  definition: EntityDefinition,
  field = 'roleAttributes',
): NonNullable<ListOptions['scope']> {
  const setTable = definition.fields[field]?.setTable;
  if (!setTable) throw new Error(`${definition.type}.${field} is not a set field`);
  return (context) => {
    const values = queryValues(context, 'roleFilter');
    if (values.length === 0) return Promise.resolve(everyRow);
    const semanticParam = queryValues(context, 'roleSemantic').at(-1) || 'AllOf';
    const semantic = SEMANTICS.find((name) => name.toLowerCase() === semanticParam.toLowerCase());
    if (!semantic) throw ApiError.invalidField('roleSemantic', 'invalid semantic', semanticParam);
    const unprefixed = values.filter((value) => !value.startsWith('#') && !value.startsWith('@'));
    if (unprefixed.length > 0) {
      const reason = 'role entries must prefixed with # (to indicate role attributes) or @ (to indicate a name or id)';
      throw ApiError.invalidField('roleFilter', reason, unprefixed);
    }
    const roles = [...new Set(values.filter((value) => value.startsWith('#')).map((value) => value.slice(1)))];
    const ids = values.filter((value) => value.startsWith('@')).map((value) => value.slice(1));
    const matches: Scope[] = [];
    if (roles.length > 0) matches.push(withAttributes(setTable, roles, semantic));
    if (ids.length > 0) matches.push(idIn(ids));
    return Promise.resolve(anyOf(matches));
  };
}
