// Turns a validated request body into entity values: one mapping for create, PUT and PATCH.
import { ApiError } from '../errors/api-error.js';
import { getPath, isJsonObject } from '../lib/object-path.js';
import type { EntityDefinition, FieldSpec } from './define-entity.js';

export type WriteMode = 'create' | 'update' | 'patch';

export interface EntityInput {
  /** Values by API name, as the body gives them (validated against the contract, which the fields mirror). */
  values: Record<string, unknown>;
  /** API names of the fields this write sets. */
  changed: Set<string>;
}

/**
 * Create and PUT write every writable field (a missing one gets its fallback or empty value); PATCH writes only
 * the keys present with a non-null value, and an empty object for a map field changes nothing — both as
 * upstream's `controller/api/json_fields.go` does. A blank string in a `blankIsUnset` field is written as if the
 * field had no value, on PATCH too (upstream's stores trim such fields: `db/identity_store.go` PersistEntity).
 */
export function entityInput(definition: EntityDefinition, body: unknown, mode: WriteMode): EntityInput {
  const source = isJsonObject(body) ? body : {};
  const values: Record<string, unknown> = {};
  const changed = new Set<string>();
  const take = (name: string, spec: Pick<FieldSpec, 'kind' | 'fallback' | 'blankIsUnset'>) => {
    // Dotted names address nested API objects (auth policies' `primary.updb.allowed`).
    const raw = getPath(source, name);
    if (mode === 'patch') {
      if (raw === undefined || raw === null) return;
      if (spec.kind === 'json' && isEmptyObject(raw)) return;
    }
    const isBlank = spec.blankIsUnset && typeof raw === 'string' && raw.trim() === '';
    values[name] = isBlank ? unsetValue(spec) : (raw ?? unsetValue(spec));
    changed.add(name);
  };

  take('tags', { kind: 'json', fallback: () => ({}), blankIsUnset: false });
  for (const [name, spec] of Object.entries(definition.fields)) {
    if (spec.writable === 'never' || (spec.writable === 'create' && mode !== 'create')) continue;
    take(name, spec);
  }
  checkInput(definition, values);
  return { values, changed };
}

function checkInput(definition: EntityDefinition, values: Record<string, unknown>): void {
  if ('name' in definition.fields && 'name' in values) {
    if (typeof values.name !== 'string' || values.name.trim() === '') {
      throw ApiError.invalidField('name', 'name is required', values.name);
    }
  }
  if ('tags' in values) checkTags(values.tags);
}

/** Tags are a flat map of strings, booleans, numbers and nulls; upstream answers 500 for nesting, we answer 400. */
function checkTags(tags: unknown): void {
  if (tags === null || typeof tags !== 'object' || Array.isArray(tags)) {
    throw ApiError.invalidField('tags', 'tags must be an object', tags);
  }
  for (const [key, value] of Object.entries(tags)) {
    if (value !== null && typeof value === 'object') {
      const kind = Array.isArray(value) ? 'lists' : 'maps';
      throw ApiError.invalidField(`tags.${key}`, `nested ${kind} not supported`, value);
    }
  }
}

/** What a field holds when the body gives it no value: its fallback, else the kind's empty value. */
function unsetValue(spec: Pick<FieldSpec, 'kind' | 'fallback'>): unknown {
  if (spec.fallback) return spec.fallback();
  switch (spec.kind) {
    case 'boolean':
      return false;
    case 'stringSet':
      return [];
    default:
      return null;
  }
}

function isEmptyObject(value: unknown): boolean {
  return isJsonObject(value) && Object.keys(value).length === 0;
}
