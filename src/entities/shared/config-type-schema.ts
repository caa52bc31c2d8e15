// Config type schemas as upstream reads them with gojsonschema: draft-04, -06 or -07 chosen by `$schema`,
// compiled once per schema document and reused by every config write.
import { createRequire } from 'node:module';
import { Ajv, type AnySchemaObject, type ErrorObject, type ValidateFunction } from 'ajv';
import AjvDraft04 from 'ajv-draft-04';
import formatsPlugin from 'ajv-formats';
import { deleteOldest } from '../../lib/collections.js';
import { isJsonObject } from '../../lib/object-path.js';

const require = createRequire(import.meta.url);
// ajv's own copy of the draft-06 meta-schema (a JSON file, which require answers as `any`).
const draft06MetaSchema = require('ajv/dist/refs/json-schema-draft-06.json') as AnySchemaObject;

/** One problem with config data, shaped like gojsonschema's first result error. */
export interface SchemaViolation {
  /** `(root)` or a dotted path such as `portRanges.0.high`, as gojsonschema names fields. */
  field: string;
  message: string;
  value: unknown;
}

export type ConfigDataCheck = (data: unknown) => SchemaViolation | undefined;

/** Compiled validators by schema text; bounded, since schemas change only through admin writes. */
const compiled = new Map<string, ConfigDataCheck>();
const MAX_COMPILED = 256;

/**
 * A fresh ajv per schema: user schemas may share an `$id` (copies of host.v1), which one shared instance would
 * refuse, and nothing compiled stays behind when the cache drops it.
 */
function newAjv(schema: Record<string, unknown>): Ajv {
  const isDraft04 = typeof schema.$schema === 'string' && schema.$schema.includes('draft-04');
  const ajv = isDraft04 ? new AjvDraft04.default({ strict: false }) : new Ajv({ strict: false });
  if (!isDraft04) ajv.addMetaSchema(draft06MetaSchema);
  formatsPlugin.default(ajv);
  // Tunnelers put IPs, CIDRs and wildcards in idn-hostname fields on purpose (see listenAddress's description);
  // gojsonschema knows no such format and accepts any string, so we do too.
  ajv.addFormat('idn-hostname', true);
  return ajv;
}

/** Compiles a schema document, throwing ajv's error text when it is not a valid JSON schema. */
export function configDataCheck(schema: Record<string, unknown>): ConfigDataCheck {
  const key = JSON.stringify(schema);
  const cached = compiled.get(key);
  if (cached) return cached;
  const validate = newAjv(schema).compile(schema);
  const check: ConfigDataCheck = (data) => (validate(data) ? undefined : violationOf(firstError(validate), data));
  if (compiled.size >= MAX_COMPILED) deleteOldest(compiled);
  compiled.set(key, check);
  return check;
}

function firstError(validate: ValidateFunction): ErrorObject {
  return (
    validate.errors?.[0] ?? {
      keyword: 'false schema',
      instancePath: '',
      schemaPath: '',
      params: {},
      message: 'invalid',
    }
  );
}

function violationOf(error: ErrorObject, data: unknown): SchemaViolation {
  const segments = error.instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'));
  const field = segments.length === 0 ? '(root)' : segments.join('.');
  const value = segments.reduce<unknown>(
    (at, key) => (typeof at === 'object' && at !== null ? Reflect.get(at, key) : undefined),
    data,
  );
  return { field, message: messageOf(error), value };
}

/** gojsonschema's wording where it names the property, ajv's otherwise (the reason text is not part of parity). */
function messageOf(error: ErrorObject): string {
  const params: Record<string, unknown> = error.params;
  if (error.keyword === 'required') return `${String(params.missingProperty)} is required`;
  if (error.keyword === 'additionalProperties')
    return `Additional property ${String(params.additionalProperty)} is not allowed`;
  return error.message ?? error.keyword;
}

/** A JSON value with object keys sorted at every depth, as Go's encoder writes the maps upstream stores. */
export function withSortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withSortedKeys);
  if (!isJsonObject(value)) return value;
  const record = value;
  return Object.fromEntries(
    Object.keys(record)
      .sort()
      .map((key) => [key, withSortedKeys(record[key])]),
  );
}
