// Binds one path, query or header parameter the way go-swagger's generated BindRequest does: take the last raw
// value, treat an empty optional value as absent, convert the type, then check enum, format and bounds.
import type { FieldCause, ParameterSpec } from './contract-types.js';
import { goFloat, goList, goQuote } from '../../lib/go-format.js';
import { isRecord } from './read-contract.js';

type Schema = Record<string, unknown>;
export type Binding =
  { ok: true; present: false } | { ok: true; present: true; value: unknown } | { ok: false; cause: FieldCause };

const separators: Record<string, string> = { csv: ',', ssv: ' ', tsv: '\t', pipes: '|' };
const int64Min = -(2n ** 63n);
const int64Max = 2n ** 63n - 1n;
const uuid =
  /^(?:urn:uuid:)?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$|^\{[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\}$|^[0-9a-f]{32}$/i;
/** swag.ConvertBool: these are true, anything else is false (it never fails). */
const trueWords = new Set(['true', '1', 'yes', 'ok', 'y', 'on', 'selected', 'checked', 't', 'enabled']);

/** A parameter's (or its items') schema; none reads as `{}`, which accepts the raw text. */
const schemaOf = (schema: unknown): Schema => (isRecord(schema) ? schema : {});

function fail(field: string, reason: string, value: string): Binding {
  return { ok: false, cause: { field, reason, value } };
}

/** `raw` is every value sent under the name (repeated query keys, repeated headers); undefined when it is absent. */
export function bindParameter(parameter: ParameterSpec, raw: readonly string[] | undefined): Binding {
  const { name, in: location } = parameter;
  const schema = schemaOf(parameter.schema);
  if (schema.type === 'array') return bindArray(parameter, raw ?? []);
  const last = raw?.at(-1) ?? '';
  if (parameter.required) {
    // errors.Required gets the raw slice when the key is missing (`%v` of a nil slice is "[]"), "" when empty.
    if (raw === undefined) return fail(name, `${name} in ${location} is required`, '[]');
    if (last === '') return fail(name, `${name} in ${location} is required`, '');
  } else if (last === '') {
    return schema.default === undefined
      ? { ok: true, present: false }
      : { ok: true, present: true, value: schema.default };
  }
  return bindScalar(name, location, schema, last);
}

function bindArray(parameter: ParameterSpec, raw: readonly string[]): Binding {
  const { name, in: location } = parameter;
  const schema = schemaOf(parameter.schema);
  const format = parameter.collectionFormat ?? 'csv';
  const last = raw.at(-1) ?? '';
  const items = format === 'multi' ? [...raw] : last === '' ? [] : last.split(separators[format] ?? ',');
  if (items.length === 0) {
    return parameter.required ? fail(name, `${name} in ${location} is required`, '[]') : { ok: true, present: false };
  }
  const values: unknown[] = [];
  for (const [index, item] of items.entries()) {
    const bound = bindScalar(`${name}.${index}`, location, schemaOf(schema.items), item);
    if (!bound.ok) return bound;
    if (bound.present) values.push(bound.value);
  }
  const problem = checkBounds(name, location, schema, values);
  return problem ?? { ok: true, present: true, value: values };
}

function bindScalar(name: string, location: string, schema: Schema, raw: string): Binding {
  let value: unknown = raw;
  if (schema.type === 'integer') {
    const bits = schema.format === 'int32' ? 32 : 64;
    if (!/^[+-]?\d+$/.test(raw) || !fitsBits(BigInt(raw), bits))
      return fail(name, `${name} in ${location} must be of type int${bits}: ${goQuote(raw)}`, raw);
    value = Number(raw);
  } else if (schema.type === 'number') {
    const parsed = Number(raw);
    const type = schema.format === 'float' ? 'float32' : 'float64';
    if (raw.trim() === '' || Number.isNaN(parsed))
      return fail(name, `${name} in ${location} must be of type ${type}: ${goQuote(raw)}`, raw);
    value = parsed;
  } else if (schema.type === 'boolean') {
    value = trueWords.has(raw.toLowerCase());
  } else if (schema.format === 'uuid' && !uuid.test(raw)) {
    return fail(name, `${name} in ${location} must be of type uuid: ${goQuote(raw)}`, raw);
  }
  return checkBounds(name, location, schema, value) ?? { ok: true, present: true, value };
}

function fitsBits(value: bigint, bits: number): boolean {
  return bits === 32 ? value >= -(2n ** 31n) && value < 2n ** 31n : value >= int64Min && value <= int64Max;
}

/** enum, bounds, lengths and pattern, with go-openapi's messages. */
function checkBounds(name: string, location: string, schema: Schema, value: unknown): Binding | undefined {
  const shown = Array.isArray(value) ? goList(value) : String(value);
  const say = (reason: string) => fail(name, `${name} in ${location} ${reason}`, shown);
  if (Array.isArray(schema.enum) && !schema.enum.some((allowed) => allowed === value))
    return say(`should be one of ${goList(schema.enum)}`);
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum)
      return say(`should be greater than or equal to ${goFloat(schema.minimum)}`);
    if (typeof schema.maximum === 'number' && value > schema.maximum)
      return say(`should be less than or equal to ${goFloat(schema.maximum)}`);
  }
  if (typeof value === 'string') {
    if (typeof schema.minLength === 'number' && [...value].length < schema.minLength)
      return say(`should be at least ${schema.minLength} chars long`);
    if (typeof schema.maxLength === 'number' && [...value].length > schema.maxLength)
      return say(`should be at most ${schema.maxLength} chars long`);
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value))
      return say(`should match '${schema.pattern}'`);
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === 'number' && value.length < schema.minItems)
      return say(`should have at least ${schema.minItems} items`);
    if (typeof schema.maxItems === 'number' && value.length > schema.maxItems)
      return say(`should have at most ${schema.maxItems} items`);
    if (schema.uniqueItems === true && new Set(value).size !== value.length) return say(`shouldn't contain duplicates`);
  }
  return undefined;
}
