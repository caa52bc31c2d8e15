// Writes the per-operation TypeScript types of the committed contract (src/http/spec/gen/operations.ts): for every
// operationId of each API, its path, query and header parameters and its body, as a handler receives them after
// request validation (src/http/spec/validate-request.ts), so handlers read typed values instead of casting.
//
// The body types follow the request mode of src/http/spec/convert-schema.ts, i.e. what go-swagger lets through:
// a required property is present and not null; an optional one may be missing or null, and an optional scalar that
// is not x-nullable may hold its Go zero value whatever its enum says; an object with no declared shape is any JSON
// value; a discriminated definition is the union of its subtypes, each with its discriminator value.

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };
type ApiName = 'client' | 'management' | 'fabric';

const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'];
const apiPrefix: Record<ApiName, string> = { client: 'Client', management: 'Management', fabric: 'Fabric' };
const scalarZero: Record<string, string> = { string: "''", integer: '0', number: '0' };
const baseSuffix = 'Base';

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A string member of the document (names, ids); anything else reads as empty. */
const text = (value: Json | undefined) => (typeof value === 'string' ? value : '');
const capitalise = (name: string) => `${name.charAt(0).toUpperCase()}${name.slice(1)}`;
const literal = (value: Json) => JSON.stringify(value);
const key = (name: string) => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : literal(name));
const refName = (ref: Json | undefined) =>
  typeof ref === 'string' && ref.startsWith('#/definitions/') ? ref.slice('#/definitions/'.length) : undefined;

/** The request-body types of one API: definitions are emitted as they are first referenced. */
class DefinitionTypes {
  readonly emitted = new Map<string, string>();
  private readonly subtypes = new Map<string, Map<string, string>>();

  constructor(
    private readonly api: ApiName,
    private readonly definitions: JsonObject,
  ) {
    for (const [name, schema] of Object.entries(definitions)) {
      if (isObject(schema) && typeof schema.discriminator === 'string')
        this.subtypes.set(name, new Map([[name, name]]));
    }
    for (const [name, schema] of Object.entries(definitions)) {
      if (!isObject(schema) || !Array.isArray(schema.allOf)) continue;
      for (const part of schema.allOf) {
        const parent = this.subtypes.get(refName(isObject(part) ? part.$ref : undefined) ?? '');
        if (parent) parent.set(typeof schema['x-class'] === 'string' ? schema['x-class'] : name, name);
      }
    }
  }

  /** A reference to a definition; in an allOf, a discriminated one is the plain base its subtypes extend. */
  private reference(name: string, inAllOf: boolean): string {
    const discriminated = this.subtypes.get(name);
    const typeName = `${apiPrefix[this.api]}${capitalise(name)}${inAllOf && discriminated ? baseSuffix : ''}`;
    if (this.emitted.has(typeName)) return typeName;
    this.emitted.set(typeName, ''); // claimed first: definitions may refer to themselves
    const schema = this.definitions[name];
    if (!isObject(schema)) throw new Error(`${this.api}: unknown definition ${name}`);
    let type: string;
    if (!discriminated) type = this.schema(schema);
    else if (inAllOf) type = this.schema(schema, { omit: text(schema.discriminator) });
    else {
      const property = key(text(schema.discriminator));
      type = [...discriminated]
        .map(
          ([value, target]) =>
            `(${target === name ? this.reference(name, true) : this.reference(target, false)} & { ${property}: ${literal(value)} })`,
        )
        .join(' | ');
    }
    this.emitted.set(typeName, type);
    return typeName;
  }

  /** A schema's type; `omit` drops the discriminator property of a base (go-swagger never checks it there). */
  schema(schema: Json | undefined, options: { inAllOf?: boolean; omit?: string } = {}): string {
    if (!isObject(schema)) return 'Json';
    const ref = refName(schema.$ref);
    if (ref !== undefined) return this.reference(ref, options.inAllOf ?? false);
    const parts: string[] = Array.isArray(schema.allOf)
      ? schema.allOf.map((part) => this.schema(part, { inAllOf: true }))
      : [];
    if (schema.type === 'array') return `${this.wrap(this.schema(schema.items))}[]`;
    if (schema.type === 'object' || isObject(schema.properties)) {
      const object = this.object(schema, options.omit);
      if (object) parts.push(object);
    } else if (Array.isArray(schema.enum)) parts.push(schema.enum.map(literal).join(' | '));
    else if (schema.type === 'integer' || schema.type === 'number') parts.push('number');
    else if (schema.type === 'string' || schema.type === 'boolean') parts.push(schema.type);
    return parts.length === 0 ? 'Json' : parts.map((part) => (parts.length > 1 ? this.wrap(part) : part)).join(' & ');
  }

  private wrap(type: string): string {
    return /^[\w$]+$/.test(type) || /^\{.*\}$/s.test(type) ? type : `(${type})`;
  }

  /** An object's own members, or undefined when it declares no shape (Go's interface{}: any JSON value). */
  private object(schema: JsonObject, omit: string | undefined): string | undefined {
    const properties = isObject(schema.properties) ? schema.properties : {};
    const required = new Set(
      Array.isArray(schema.required) ? schema.required.filter((name) => typeof name === 'string') : [],
    );
    const extra = schema.additionalProperties;
    const members = Object.entries(properties)
      .filter(([name]) => name !== omit)
      .map(([name, property]) => {
        const type = this.schema(property);
        if (required.has(name)) return `${key(name)}: ${type === 'Json' ? 'JsonPresent' : type}`;
        const zero = this.zeroOf(property);
        return `${key(name)}?: ${type}${type === 'Json' ? '' : ` | null${zero && !type.split(' | ').includes(zero) ? ` | ${zero}` : ''}`}`;
      });
    if (isObject(extra)) members.push(`[key: string]: ${this.schema(extra)}`);
    if (members.length > 0) return `{ ${members.join('; ')} }`;
    // Declared properties all omitted, or none and no other rule: still an object; none at all: any JSON value.
    if (isObject(schema.properties) || extra === false) return '{ [key: string]: Json }';
    return undefined;
  }

  /** The Go zero value an optional non-nullable enum scalar may hold past validation (`''` for a string). */
  private zeroOf(property: Json): string | undefined {
    if (!isObject(property) || property['x-nullable'] === true) return undefined;
    const ref = refName(property.$ref);
    const target = ref !== undefined ? this.definitions[ref] : property;
    if (!isObject(target) || target['x-nullable'] === true || !Array.isArray(target.enum)) return undefined;
    return typeof target.type === 'string' ? scalarZero[target.type] : undefined;
  }
}

/** A path, query or header parameter after binding: numbers and booleans converted, enums checked. */
function parameterType(parameter: JsonObject): string {
  if (parameter.type === 'array') return `${parameterType(isObject(parameter.items) ? parameter.items : {})}[]`;
  if (Array.isArray(parameter.enum)) return `(${parameter.enum.map(literal).join(' | ')})`;
  if (parameter.type === 'integer' || parameter.type === 'number') return 'number';
  return parameter.type === 'boolean' ? 'boolean' : 'string';
}

function members(parameters: JsonObject[], location: string): string {
  const own = parameters.filter((parameter) => parameter.in === location);
  if (own.length === 0) return 'Record<string, never>';
  const fields = own.map((parameter) => {
    const name = location === 'header' ? text(parameter.name).toLowerCase() : text(parameter.name);
    // An empty optional value is dropped, unless a scalar parameter has a default (bind-parameter.ts).
    const present =
      location === 'path' ||
      parameter.required === true ||
      (parameter.default !== undefined && parameter.type !== 'array');
    return `${key(name)}${present ? '' : '?'}: ${parameterType(parameter)}`;
  });
  return `{ ${fields.join('; ')} }`;
}

function operationType(doc: JsonObject, types: DefinitionTypes, shared: Json[], operation: JsonObject): string {
  const merged = new Map<string, JsonObject>();
  for (const parameter of [...shared, ...(Array.isArray(operation.parameters) ? operation.parameters : [])]) {
    if (isObject(parameter)) merged.set(`${text(parameter.in)}:${text(parameter.name)}`, parameter);
  }
  const parameters = [...merged.values()];
  const bodyParameter = parameters.find((parameter) => parameter.in === 'body');
  const consumes = Array.isArray(operation.consumes)
    ? operation.consumes
    : Array.isArray(doc.consumes)
      ? doc.consumes
      : [];
  // A body of another media type than JSON (a PEM, a CSR) reaches the handler as its text (media-type.ts isJsonMediaType).
  const asText = consumes.some(
    (type) =>
      typeof type === 'string' && type.toLowerCase() !== 'application/json' && !type.toLowerCase().endsWith('+json'),
  );
  // Without a body parameter nothing checks the body: whatever JSON arrived, if any (`/enroll` reads its CSR so).
  const schema = bodyParameter ? types.schema(bodyParameter.schema) : 'Json';
  const isRequired = bodyParameter?.required === true;
  const alternatives = [
    schema === 'Json' && isRequired ? 'JsonPresent' : schema,
    asText ? 'string' : '',
    isRequired ? '' : 'undefined',
  ];
  const body = [...new Set(alternatives.filter(Boolean))].join(' | ');
  return `{ params: ${members(parameters, 'path')}; query: ${members(parameters, 'query')}; headers: ${members(parameters, 'header')}; body: ${body} }`;
}

/** The generated module's text, from the three committed documents. */
export function operationTypesSource(documents: Record<ApiName, string>): string {
  const out = [
    '// Generated by `npm run contract` (scripts/operation-types.ts) from the committed contract: do not edit.',
    '// Per operationId: the path, query and header parameters and the body a handler receives once validated.',
    '/* eslint-disable max-lines -- generated: one line per operation and per body type */',
    '',
    '/** Any JSON value: what Go decodes into interface{}. */',
    'export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };',
    '/** A required property of any JSON type: present and not null. */',
    'export type JsonPresent = boolean | number | string | Json[] | { [key: string]: Json };',
  ];
  for (const api of ['client', 'management', 'fabric'] as const) {
    const doc = JSON.parse(documents[api]) as JsonObject;
    const types = new DefinitionTypes(api, isObject(doc.definitions) ? doc.definitions : {});
    const operations: string[] = [];
    for (const item of Object.values(isObject(doc.paths) ? doc.paths : {})) {
      if (!isObject(item)) continue;
      const shared = Array.isArray(item.parameters) ? item.parameters : [];
      for (const [method, operation] of Object.entries(item)) {
        if (!methods.includes(method) || !isObject(operation)) continue;
        operations.push(`  ${key(text(operation.operationId))}: ${operationType(doc, types, shared, operation)};`);
      }
    }
    out.push('', `export type ${apiPrefix[api]}Operations = {`, ...operations.sort(), '};');
    for (const [name, type] of [...types.emitted].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      out.push(`export type ${name} = ${type};`);
  }
  out.push(
    '',
    'export type OperationsByApi = { client: ClientOperations; management: ManagementOperations; fabric: FabricOperations };',
    '',
  );
  return out.join('\n');
}
