// Maps stored entity values to API shapes: the base entity fields, `_links`, references, computed fields.
import type { Db } from '../store/store.js';
import type { AppDeps } from '../app-deps.js';
import type { EntityDefinition } from './define-entity.js';
import type { EntityValues } from './entity-rules.js';

export async function toApiEntity(
  definition: EntityDefinition,
  values: EntityValues,
  context: { db: Db; deps: AppDeps },
): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {
    _links: definition.links(values),
    createdAt: values.createdAt,
    id: values.id,
    tags: values.tags ?? {},
    updatedAt: values.updatedAt,
  };
  for (const [name, spec] of Object.entries(definition.fields)) if (spec.output) out[name] = values[name];
  if (definition.rules.toApi) Object.assign(out, await definition.rules.toApi(context, values));
  return out;
}

/** `{_links, entity, id, name}`: a reference carries the full link set the entity has in its own detail. */
export function entityRef(definition: EntityDefinition, values: EntityValues): Record<string, unknown> {
  return { _links: definition.links(values), entity: definition.path, id: values.id, name: values.name };
}
