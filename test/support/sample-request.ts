// Builds a request that passes contract validation for any operation, from the operation's own schemas, so
// tests can reach the access check of every operation without hand-writing 242 bodies.
import { loadContract, type ApiName, type OperationSpec } from '../../src/http/spec/load-spec.js';

type Schema = Record<string, unknown>;

interface SwaggerDocument {
  basePath: string;
  definitions: Record<string, Schema>;
  paths: Record<string, Record<string, { parameters?: Schema[] } | Schema[]>>;
}

const documents = new Map<ApiName, SwaggerDocument>();
function documentOf(api: ApiName): SwaggerDocument {
  let document = documents.get(api);
  if (!document) documents.set(api, (document = loadContract(api).document as SwaggerDocument));
  return document;
}

function resolve(document: SwaggerDocument, schema: Schema): Schema {
  const ref = schema.$ref as string | undefined;
  return ref ? resolve(document, document.definitions[ref.replace('#/definitions/', '')]!) : schema;
}

/** A polymorphic base (posture checks, posture responses) is sampled as its first subtype, x-class naming it. */
function firstSubtype(document: SwaggerDocument, raw: Schema): Schema | undefined {
  const ref = raw.$ref as string | undefined;
  if (!ref || !resolve(document, raw).discriminator) return undefined;
  return Object.values(document.definitions).find(
    (definition) =>
      typeof definition['x-class'] === 'string' && (definition.allOf as Schema[] | undefined)?.[0]?.$ref === ref,
  );
}

/** A minimal valid value: required properties only, enums' first value, lengths and minimums respected. */
export function sampleValue(document: SwaggerDocument, raw: Schema, depth = 0, dispatch = true): unknown {
  if (depth > 8) return undefined;
  const subtype = dispatch ? firstSubtype(document, raw) : undefined;
  if (subtype) {
    const base = resolve(document, raw);
    return {
      ...(sampleValue(document, subtype, depth + 1) as object),
      [base.discriminator as string]: subtype['x-class'],
    };
  }
  const schema = resolve(document, raw);
  if (Array.isArray(schema.allOf)) {
    return Object.assign(
      {},
      ...(schema.allOf as Schema[]).map((part) => sampleValue(document, part, depth + 1, false) as object),
      sampleObject(document, schema, depth),
    );
  }
  if (Array.isArray(schema.enum)) return schema.enum[0];
  switch (schema.type) {
    case 'string':
      if (schema.format === 'date-time') return new Date(Date.now() + 365 * 24 * 3600_000).toISOString();
      if (schema.format === 'uuid') return '00000000-0000-4000-8000-000000000000';
      if (schema.format === 'uri' || schema.format === 'url') return 'https://example.com/x';
      return 'sample-value'.padEnd(Number(schema.minLength ?? 0), 'x').slice(0, Number(schema.maxLength ?? 100));
    case 'integer':
    case 'number':
      return Number(schema.minimum ?? 1);
    case 'boolean':
      return false;
    case 'array':
      return Number(schema.minItems ?? 0) > 0 ? [sampleValue(document, schema.items as Schema, depth + 1)] : [];
    default:
      return sampleObject(document, schema, depth);
  }
}

function sampleObject(document: SwaggerDocument, schema: Schema, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  for (const name of (schema.required ?? []) as string[]) {
    if (properties[name]) out[name] = sampleValue(document, properties[name], depth + 1);
  }
  return out;
}

export interface SampleRequest {
  url: string;
  payload?: unknown;
  headers: Record<string, string>;
}

export function sampleRequest(op: OperationSpec): SampleRequest {
  const document = documentOf(op.api);
  let path = op.path;
  const query: string[] = [];
  const headers: Record<string, string> = {};
  let payload: unknown;
  for (const parameter of op.parameters) {
    const schema = parameter.schema as Schema;
    if (parameter.in === 'path') path = path.replace(`{${parameter.name}}`, 'sample-id');
    else if (parameter.in === 'body')
      payload = parameter.required ? sampleValue(document, rawBodySchema(document, op)) : undefined;
    else if (parameter.required) {
      const value = String(sampleValue(document, schema));
      if (parameter.in === 'query') query.push(`${parameter.name}=${encodeURIComponent(value)}`);
      else headers[parameter.name] = value;
    }
  }
  if (payload !== undefined && op.consumes.length > 0 && !op.consumes.includes('application/json')) {
    headers['content-type'] = op.consumes[0]!;
    payload = 'sample';
  }
  return { url: `${document.basePath}${path}${query.length ? `?${query.join('&')}` : ''}`, payload, headers };
}

function rawBodySchema(document: SwaggerDocument, op: OperationSpec): Schema {
  const item = document.paths[op.path]![op.method.toLowerCase()] as { parameters?: Schema[] };
  const body = item.parameters?.find((p) => p.in === 'body');
  return (body?.schema ?? {}) as Schema;
}

/** Every property the operation's body schema declares, through `$ref` and `allOf` (empty for non-object bodies). */
export function bodyPropertyNames(op: OperationSpec): string[] {
  const document = documentOf(op.api);
  const names = new Set<string>();
  const visit = (raw: Schema, depth: number) => {
    if (depth > 8) return;
    const schema = resolve(document, raw);
    for (const name of Object.keys(schema.properties ?? {})) names.add(name);
    for (const part of (schema.allOf ?? []) as Schema[]) visit(part, depth + 1);
  };
  visit(rawBodySchema(document, op), 0);
  return [...names];
}
