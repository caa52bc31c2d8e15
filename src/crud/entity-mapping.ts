// Maps stored entity values to API shapes: the base entity fields, `_links`, references, computed fields.
import { setPath } from '../lib/object-path.js';
import type { EntityDefinition, EntityValues, LinkSource } from './define-entity.js';
import type { ReadContext } from './entity-rules.js';

export async function toApiEntities<V extends EntityValues>(
  definition: EntityDefinition<V>,
  entities: readonly V[],
  context: ReadContext,
): Promise<Record<string, unknown>[]> {
  const extensions = definition.rules.extend ? await definition.rules.extend(context, entities) : [];
  return entities.map((values, index) => {
    const out: Record<string, unknown> = {
      _links: definition.links(values),
      createdAt: values.createdAt,
      id: values.id,
      tags: values.tags ?? {},
      updatedAt: values.updatedAt,
    };
    for (const { name, path } of outputFieldsOf(definition)) {
      if (path) setPath(out, path, values[name]);
      else out[name] = values[name];
    }
    return Object.assign(out, extensions[index]);
  });
}

/** A definition's output fields, in order; `path` only for dotted names (`primary.updb.allowed`). */
const outputFields = new WeakMap<EntityDefinition<never>, { name: string; path: string | undefined }[]>();

function outputFieldsOf(definition: EntityDefinition<never>): { name: string; path: string | undefined }[] {
  let fields = outputFields.get(definition);
  if (!fields) {
    fields = Object.entries(definition.fields).flatMap(([name, spec]) =>
      spec.output ? [{ name, path: name.includes('.') ? name : undefined }] : [],
    );
    outputFields.set(definition, fields);
  }
  return fields;
}

export async function toApiEntity<V extends EntityValues>(
  definition: EntityDefinition<V>,
  values: V,
  context: ReadContext,
): Promise<Record<string, unknown>> {
  const [entity = {}] = await toApiEntities(definition, [values], context);
  return entity;
}

/** `{_links, entity, id, name}`: a reference carries the full link set the entity has in its own detail. */
export function entityRef<V extends EntityValues>(
  definition: EntityDefinition<V>,
  values: LinkSource<V>,
): Record<string, unknown> {
  return { _links: definition.links(values), entity: definition.path, id: values.id, name: values.name };
}
