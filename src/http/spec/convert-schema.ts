// Swagger 2.0 schemas → JSON schemas for ajv, following how go-swagger decodes requests and what our replies may hold.
//
// Two modes, because upstream treats the two directions differently:
// - request: what Go's decoder and go-swagger's generated Validate() accept. A null or missing optional property
//   is "not set"; an optional scalar that is not x-nullable is a Go value type, so its zero value ("", 0, false)
//   skips validation; a required property that is null fails as "required". x-nullable changes nothing here.
// - response: what we may send. null only where x-nullable says so.
// Both: an object without properties accepts any JSON value (Go's interface{}), unknown properties are allowed,
// and a `discriminator` picks the subtype named by its property (`x-class`, else the definition name).

export type SchemaMode = 'request' | 'response';
export type JsonSchema = Record<string, unknown>;

/** The custom ajv keyword that reports a missing or unknown discriminator value (see operation-validators.ts). */
export const discriminatorKeyword = 'x-go-discriminator';
/** An annotation (not a check) naming the Go type a definition decodes into, where it is a named type. */
export const goTypeKeyword = 'x-go-type';
/** The custom ajv keyword for the Go integer type a number must fit (32 or 64 bits), as the decoder requires. */
export const integerBitsKeyword = 'x-go-integer-bits';
export interface DiscriminatorRule {
  property: string;
  values: string[];
  base: string;
}

interface Discriminator {
  property: string;
  /** discriminator value → definition name */
  subtypes: Map<string, string>;
}

export interface ConvertContext {
  mode: SchemaMode;
  /** Prefix for converted `$ref`s, e.g. `edge-management-request#/definitions/`. */
  refBase: string;
  definitions: Record<string, unknown>;
  discriminated: Map<string, Discriminator>;
}

const baseSuffix = '__base';
const scalarZero: Record<string, unknown> = { string: '', integer: 0, number: 0, boolean: false };
/**
 * Upstream bounds no array in a request body; we refuse more items than any client sends (roles, attributes,
 * configTypes, service configs) with go-openapi's "should have at most N items", before any other work.
 */
export const MAX_REQUEST_ITEMS = 10_000;
const copiedKeywords = [
  'enum',
  'format',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'pattern',
  'multipleOf',
  'minItems',
  'maxItems',
  'uniqueItems',
];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function refName(ref: unknown): string | undefined {
  return typeof ref === 'string' && ref.startsWith('#/definitions/') ? ref.slice('#/definitions/'.length) : undefined;
}

export function createConvertContext(
  definitions: Record<string, unknown>,
  mode: SchemaMode,
  schemaId: string,
): ConvertContext {
  const discriminated = new Map<string, Discriminator>();
  for (const [name, schema] of Object.entries(definitions)) {
    if (isRecord(schema) && typeof schema.discriminator === 'string') {
      discriminated.set(name, { property: schema.discriminator, subtypes: new Map() });
    }
  }
  for (const [name, schema] of Object.entries(definitions)) {
    if (!isRecord(schema) || !Array.isArray(schema.allOf)) continue;
    for (const part of schema.allOf) {
      const parent = discriminated.get(refName(isRecord(part) ? part.$ref : undefined) ?? '');
      if (parent) parent.subtypes.set(typeof schema['x-class'] === 'string' ? schema['x-class'] : name, name);
    }
  }
  return { mode, refBase: `${schemaId}#/definitions/`, definitions, discriminated };
}

/** Every definition, plus `<name>__base` for discriminated ones (the plain base their subtypes extend). */
export function convertDefinitions(ctx: ConvertContext): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const [name, schema] of Object.entries(ctx.definitions)) {
    const discriminator = ctx.discriminated.get(name);
    if (!discriminator) {
      out[name] = withGoType(convertSchema(schema, ctx), name);
      continue;
    }
    out[`${name}${baseSuffix}`] = withoutDiscriminatorCheck(convertSchema(schema, ctx), discriminator.property);
    out[name] = polymorphic(name, discriminator, ctx);
  }
  return out;
}

/**
 * A definition that is not a struct is a named Go type (`rest_model.Password`, `rest_model.SubTags`), which Go's
 * decoder names when a value does not fit it; the annotation carries the name to the error messages.
 */
function withGoType(converted: JsonSchema, name: string): JsonSchema {
  if (converted.properties !== undefined || converted.type === undefined) return converted;
  return { ...converted, [goTypeKeyword]: `rest_model.${goTypeName(name)}` };
}

/** go-swagger's common initialisms (go-openapi/swag), and JWT, which edge-api's generator adds. */
const goInitialisms = new Set([
  'ACL',
  'API',
  'ASCII',
  'CPU',
  'CSS',
  'DNS',
  'EOF',
  'GUID',
  'HTML',
  'HTTP',
  'HTTPS',
  'ID',
  'IP',
  'JSON',
  'JWT',
  'LHS',
  'QPS',
  'RAM',
  'RHS',
  'RPC',
  'SLA',
  'SMTP',
  'SQL',
  'SSH',
  'TCP',
  'TLS',
  'TTL',
  'UDP',
  'UI',
  'UID',
  'UUID',
  'URI',
  'URL',
  'UTF8',
  'VM',
  'XML',
  'XMPP',
  'XSRF',
  'XSS',
]);

/** The Go type go-swagger generates for a definition: `externalJwtSignerCreate` → `ExternalJWTSignerCreate`. */
export function goTypeName(definition: string): string {
  return definition
    .split(/(?=[A-Z])/)
    .map((word) =>
      goInitialisms.has(word.toUpperCase()) ? word.toUpperCase() : `${word.charAt(0).toUpperCase()}${word.slice(1)}`,
    )
    .join('');
}

/**
 * Subtypes never validate the discriminator (go-swagger's subtype returns a constant for it), so a value the
 * property's enum lacks, such as the client's ENDPOINT_STATE posture response, still passes.
 */
function withoutDiscriminatorCheck(base: JsonSchema, property: string): JsonSchema {
  const properties = base.properties;
  if (isRecord(properties) && properties[property]) properties[property] = {};
  return base;
}

/** Go reads the discriminator first, then decodes into the named subtype (or the base, for its own name). */
function polymorphic(name: string, discriminator: Discriminator, ctx: ConvertContext): JsonSchema {
  const { property } = discriminator;
  const targets = new Map(discriminator.subtypes);
  targets.set(name, `${name}${baseSuffix}`);
  const rule: DiscriminatorRule = { property, values: [...targets.keys()], base: name };
  return {
    type: 'object',
    [discriminatorKeyword]: rule,
    allOf: [...targets].map(([value, target]) => ({
      if: { properties: { [property]: { const: value } }, required: [property] },
      then: { $ref: `${ctx.refBase}${target}` },
    })),
  };
}

export function convertSchema(schema: unknown, ctx: ConvertContext, inAllOf = false): JsonSchema {
  if (!isRecord(schema)) return {};
  const converted = convertShape(schema, ctx, inAllOf);
  return ctx.mode === 'response' && schema['x-nullable'] === true ? allowNull(converted) : converted;
}

function convertShape(schema: Record<string, unknown>, ctx: ConvertContext, inAllOf: boolean): JsonSchema {
  const ref = refName(schema.$ref);
  if (ref !== undefined) {
    // An allOf that names a discriminated definition declares a subtype: it extends the plain base.
    const target = inAllOf && ctx.discriminated.has(ref) ? `${ref}${baseSuffix}` : ref;
    return { $ref: `${ctx.refBase}${target}` };
  }
  const out: JsonSchema = {};
  if (Array.isArray(schema.allOf)) out.allOf = schema.allOf.map((part) => convertSchema(part, ctx, true));
  if (schema.type === 'object' || isRecord(schema.properties)) {
    Object.assign(out, convertObject(schema, ctx));
  } else if (schema.type === 'array') {
    out.type = 'array';
    out.items = convertSchema(schema.items, ctx);
  } else if (typeof schema.type === 'string') {
    out.type = schema.type;
  }
  for (const key of copiedKeywords) if (schema[key] !== undefined) out[key] = schema[key];
  if (ctx.mode === 'request' && out.type === 'array' && out.maxItems === undefined) out.maxItems = MAX_REQUEST_ITEMS;
  if (ctx.mode === 'request' && out.type === 'integer') out[integerBitsKeyword] = schema.format === 'int32' ? 32 : 64;
  // Swagger 2.0 (draft 4) writes exclusive bounds as booleans next to minimum/maximum.
  if (schema.exclusiveMinimum === true) out.exclusiveMinimum = out.minimum;
  if (schema.exclusiveMaximum === true) out.exclusiveMaximum = out.maximum;
  if (schema.exclusiveMinimum === true) delete out.minimum;
  if (schema.exclusiveMaximum === true) delete out.maximum;
  return out;
}

function convertObject(schema: Record<string, unknown>, ctx: ConvertContext): JsonSchema {
  const properties = isRecord(schema.properties) ? schema.properties : undefined;
  const required = Array.isArray(schema.required)
    ? schema.required.filter((name): name is string => typeof name === 'string')
    : [];
  const extra = schema.additionalProperties;
  // Go decodes an object with no declared shape into interface{}: any JSON value. go-swagger does the same with
  // `additionalProperties: true` (a config's `data`, a config type's `schema`): the handler checks for an object.
  const isShapeless = extra === undefined || (extra === true && ctx.mode === 'request');
  if (!properties && isShapeless && !schema.allOf && required.length === 0) return {};
  const out: JsonSchema = { type: 'object' };
  if (properties) {
    out.properties = Object.fromEntries(
      Object.entries(properties).map(([name, property]) => [
        name,
        convertProperty(property, required.includes(name), ctx),
      ]),
    );
  }
  if (required.length) out.required = required;
  if (isRecord(extra)) out.additionalProperties = convertSchema(extra, ctx);
  else if (extra === false) out.additionalProperties = false;
  return out;
}

function convertProperty(property: unknown, isRequired: boolean, ctx: ConvertContext): JsonSchema {
  const converted = convertSchema(property, ctx);
  if (ctx.mode === 'response') return converted;
  const isAny = Object.keys(converted).length === 0;
  // A required property that is null stays unset in Go, so it fails as required (reported from the null check).
  if (isRequired) return isAny ? { not: { type: 'null' } } : converted;
  if (isAny) return converted;
  const scalar = scalarType(property, ctx);
  const skip = scalar === undefined ? { type: 'null' } : { enum: [null, scalarZero[scalar]] };
  return { if: skip, then: true, else: converted };
}

/** The scalar Go value type behind a non-nullable property (directly or through one `$ref`), if it is one. */
function scalarType(property: unknown, ctx: ConvertContext): string | undefined {
  if (!isRecord(property) || property['x-nullable'] === true) return undefined;
  const ref = refName(property.$ref);
  const target = ref !== undefined ? ctx.definitions[ref] : property;
  if (!isRecord(target) || target['x-nullable'] === true) return undefined;
  return typeof target.type === 'string' && target.type in scalarZero ? target.type : undefined;
}

/** null, or the schema; written with if/then/else so a failure reports the schema's own errors. */
export function allowNull(schema: JsonSchema): JsonSchema {
  return Object.keys(schema).length === 0 ? schema : { if: { type: 'null' }, then: true, else: schema };
}

/** A query, path or header parameter's own schema (type, format, enum, bounds, items). */
export function convertParameterSchema(parameter: Record<string, unknown>): JsonSchema {
  const out: JsonSchema = {};
  if (typeof parameter.type === 'string') out.type = parameter.type;
  for (const key of copiedKeywords) if (parameter[key] !== undefined) out[key] = parameter[key];
  if (isRecord(parameter.items)) out.items = convertParameterSchema(parameter.items);
  if (parameter.default !== undefined) out.default = parameter.default;
  return out;
}
