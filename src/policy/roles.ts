// Role expressions in policies: `#attr`, `@id` and `#all` — parsing, validation and their display names.
import { ApiError } from '../errors/api-error.js';
import type { Db } from '../store/store.js';
import { existingIds, namesOf } from '../store/queries/references.js';
import { entityKinds, type EntityKindName } from '../store/queries/policy-tables.js';

export interface ParsedRoles {
  /** Entity ids from `@id` entries. */
  ids: string[];
  /** Attribute names from `#attr` entries (without `#all`). */
  attributes: string[];
  /** `#all`: every entity of the kind. */
  all: boolean;
}

export function parseRoles(roles: readonly string[] | null | undefined): ParsedRoles {
  const parsed: ParsedRoles = { ids: [], attributes: [], all: false };
  for (const role of roles ?? []) {
    if (role === '#all') parsed.all = true;
    else if (role.startsWith('#')) parsed.attributes.push(role.slice(1));
    else if (role.startsWith('@')) parsed.ids.push(role.slice(1));
  }
  return parsed;
}

/**
 * Upstream's checks and messages (ziti `db/policy_common.go` validateRolesAndIds): `#all` stands alone, every
 * entry is prefixed, and every `@id` names an existing entity of the side's kind. The `#all` and missing-id causes
 * show their lists sorted, the unprefixed one in the order sent (as v1.1.8 answers).
 */
export async function validateRoles(
  tx: Db,
  field: string,
  kind: EntityKindName,
  roles: readonly string[],
): Promise<void> {
  if (roles.length > 1 && roles.includes('#all')) {
    throw ApiError.invalidField(field, 'if using #all, it should be the only role specified', [...roles].sort());
  }
  const unprefixed = roles.filter((role) => !role.startsWith('#') && !role.startsWith('@'));
  if (unprefixed.length > 0) {
    throw ApiError.invalidField(
      field,
      'role entries must prefixed with # (to indicate role attributes) or @ (to indicate a name or id)',
      unprefixed,
    );
  }
  const { ids } = parseRoles(roles);
  if (ids.length === 0) return;
  const entity = entityKinds[kind];
  const found = await existingIds(tx, entity.table, ids, 'flag' in entity ? entity.flag : undefined);
  const missing = ids.filter((id) => !found.has(id)).sort();
  if (missing.length > 0)
    throw ApiError.invalidField(field, `no ${entity.storeName} found with the given ids`, missing);
}

export interface RoleDisplay {
  role: string;
  name: string;
}

/**
 * `*RolesDisplay` for many role lists of one entity kind at once: `#attr` shows itself, `@id` shows `@<name>`,
 * and an `@id` whose entity cannot be read is left out, as upstream does.
 */
export async function displayRoles(
  db: Db,
  kind: EntityKindName,
  lists: readonly (readonly string[] | null)[],
): Promise<RoleDisplay[][]> {
  const names = await namesOf(
    db,
    entityKinds[kind].table,
    lists.flatMap((roles) => parseRoles(roles).ids),
  );
  return lists.map((roles) =>
    (roles ?? []).flatMap((role) => {
      if (!role.startsWith('@')) return [{ role, name: role }];
      const name = names.get(role.slice(1));
      return name === undefined ? [] : [{ role, name: `@${name}` }];
    }),
  );
}
