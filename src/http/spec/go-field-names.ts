// Go's encoding/json matches a JSON key to a struct field case-insensitively, and the `ziti` CLI relies on it (its
// OS posture checks send `{"Type": "Windows", "Versions": [...]}`). Before a body is validated, its keys are
// renamed to the contract's property names where only the case differs, following the schema into nested objects.
import { isRecord, readContractDocument, type SwaggerDocument } from './read-contract.js';
import type { OperationSpec } from './contract-types.js';

type Schema = Record<string, unknown>;

/** Far deeper than any request schema of the contract; a bound, so hostile nesting costs nothing here. */
const MAX_DEPTH = 16;

const rawBodySchemas = new Map<OperationSpec, Schema | undefined>();

/** The operation's body schema as the Swagger document writes it (refs unresolved). */
function rawBodySchema(op: OperationSpec): Schema | undefined {
  if (!rawBodySchemas.has(op)) {
    const item = readContractDocument(op.api).paths[op.path] ?? {};
    const operation = item[op.method.toLowerCase()];
    const parameters = [item.parameters, isRecord(operation) ? operation.parameters : undefined].flatMap(
      (list): unknown[] => (Array.isArray(list) ? list : []),
    );
    const body = parameters.find((parameter) => isRecord(parameter) && parameter.in === 'body');
    rawBodySchemas.set(op, isRecord(body) && isRecord(body.schema) ? body.schema : undefined);
  }
  return rawBodySchemas.get(op);
}

/** Renames, in place, the keys of a decoded JSON body that name a declared property in another case. */
export function useGoFieldNames(op: OperationSpec, body: unknown): void {
  const schema = rawBodySchema(op);
  if (schema) rename(readContractDocument(op.api), schema, body, 0);
}

function resolve(document: SwaggerDocument, schema: Schema): Schema {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  const target = document.definitions[ref.slice(ref.lastIndexOf('/') + 1)];
  return isRecord(target) ? target : {};
}

/** Declared properties of an object schema, its allOf parts and, for a discriminated base, the named subtype. */
function propertiesOf(
  document: SwaggerDocument,
  schema: Schema,
  value: Record<string, unknown>,
  dispatch = true,
): Record<string, unknown> {
  const own = isRecord(schema.properties) ? schema.properties : {};
  const parts = Array.isArray(schema.allOf)
    ? schema.allOf.filter(isRecord).map((part) => propertiesOf(document, resolve(document, part), value, false))
    : [];
  // Later parts win, the schema's own properties last (as Object.assign would).
  const merged = Object.fromEntries([...parts, own].flatMap((part) => Object.entries(part)));
  if (!dispatch || typeof schema.discriminator !== 'string') return merged;
  const subtype = subtypeOf(document, schema, value[schema.discriminator]);
  return subtype ? { ...merged, ...propertiesOf(document, subtype, value, false) } : merged;
}

const subtypesByBase = new Map<Schema, Map<unknown, Schema>>();

/** The definition extending `base` whose `x-class` (else its name) is the discriminator's value. */
function subtypeOf(document: SwaggerDocument, base: Schema, name: unknown): Schema | undefined {
  let subtypes = subtypesByBase.get(base);
  if (!subtypes) {
    subtypes = new Map();
    for (const [definitionName, definition] of Object.entries(document.definitions)) {
      if (!isRecord(definition) || !Array.isArray(definition.allOf)) continue;
      const extendsBase = definition.allOf.some((part) => isRecord(part) && resolve(document, part) === base);
      if (extendsBase) subtypes.set(definition['x-class'] ?? definitionName, definition);
    }
    subtypesByBase.set(base, subtypes);
  }
  return subtypes.get(name);
}

function rename(document: SwaggerDocument, raw: Schema, value: unknown, depth: number): void {
  if (depth > MAX_DEPTH) return;
  const schema = resolve(document, raw);
  if (Array.isArray(value)) {
    if (isRecord(schema.items)) for (const item of value) rename(document, schema.items, item, depth + 1);
    return;
  }
  if (!isRecord(value)) return;
  // The discriminator is read first (and case-insensitively too), since it decides which properties exist.
  if (typeof schema.discriminator === 'string') renameKeys(value, [schema.discriminator]);
  const properties = propertiesOf(document, schema, value);
  renameKeys(value, Object.keys(properties));
  for (const [name, property] of Object.entries(properties)) {
    if (name in value && isRecord(property)) rename(document, property, value[name], depth + 1);
  }
}

/** Go keeps the last of several keys that land on one field, so keys are folded in document order. */
function renameKeys(value: Record<string, unknown>, names: readonly string[]): void {
  const byFolded = new Map(names.map((name) => [name.toLowerCase(), name]));
  const keys = Object.keys(value);
  if (keys.every((key) => names.includes(key) || !byFolded.has(key.toLowerCase()))) return;
  const entries = keys.map(
    (key) => [names.includes(key) ? key : (byFolded.get(key.toLowerCase()) ?? key), value[key]] as const,
  );
  for (const key of keys) delete value[key];
  for (const [key, item] of entries) value[key] = item;
}
