// Turns ajv's errors for a request body into the one field cause upstream reports, in upstream's order:
// the discriminator is read first, then Go's JSON decoder fails on the first mistyped value in document order
// (a parse error), and only then go-swagger's Validate() runs, property by property in alphabetical order.
import type { ErrorObject } from 'ajv';
import type { FieldCause, RequestFailureKind } from './contract-types.js';
import { discriminatorKeyword, integerBitsKeyword, type DiscriminatorRule } from './convert-schema.js';
import { goFloat, goList, goQuote, goValue } from '../../lib/go-format.js';

export interface BodyProblem {
  cause: FieldCause;
  kind: RequestFailureKind;
}

/** Keywords that only wrap other results (if/then/else, allOf dispatch); their children carry the real errors. */
const wrapperKeywords = new Set(['if', 'anyOf', 'oneOf', 'allOf', '$ref', 'then', 'else']);
/** Formats whose Go types decode themselves, so a bad value fails while decoding, not while validating. */
const decodedFormats = new Set(['date-time', 'byte', 'int32', 'int64']);

interface Ranked {
  error: ErrorObject;
  segments: string[];
  stage: number;
}

function pathSegments(error: ErrorObject): string[] {
  const segments = error.instancePath === '' ? [] : error.instancePath.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'required') segments.push(String((error.params as { missingProperty: string }).missingProperty));
  return segments;
}

function stageOf(error: ErrorObject): number {
  if (error.keyword === discriminatorKeyword) return 0;
  // A number that does not fit the field's Go integer type fails while decoding, as a wrong type does.
  if (error.keyword === integerBitsKeyword) return 1;
  if (error.keyword === 'type' && error.data !== null) return 1;
  if (error.keyword === 'format' && decodedFormats.has(String(error.schema))) return 1;
  return 2;
}

function compareSegments(a: readonly (string | number)[], b: readonly (string | number)[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i += 1) {
    const [x, y] = [a[i]!, b[i]!];
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    if (/^\d+$/.test(String(x)) && /^\d+$/.test(String(y))) return Number(x) - Number(y);
    return String(x) < String(y) ? -1 : 1;
  }
  return a.length - b.length;
}

/** Where a path sits in the JSON text: the index of each key in its object (JSON.parse keeps text order). */
function documentOrder(body: unknown, segments: readonly string[]): number[] {
  const order: number[] = [];
  let node = body;
  for (const segment of segments) {
    if (Array.isArray(node)) {
      order.push(Number(segment));
      node = node[Number(segment)];
    } else if (typeof node === 'object' && node !== null) {
      const index = Object.keys(node).indexOf(segment);
      order.push(index < 0 ? Number.MAX_SAFE_INTEGER : index);
      node = (node as Record<string, unknown>)[segment];
    } else {
      order.push(Number.MAX_SAFE_INTEGER);
    }
  }
  return order;
}

/** The error upstream would report first, rendered as its field cause. */
export function firstBodyProblem(errors: readonly ErrorObject[], body: unknown, bodyName: string, bodyType: string): BodyProblem | undefined {
  const ranked: Ranked[] = errors
    .filter((error) => !wrapperKeywords.has(error.keyword))
    .map((error) => ({ error, segments: pathSegments(error), stage: stageOf(error) }));
  ranked.sort(
    (a, b) =>
      a.stage - b.stage ||
      (a.stage === 1
        ? compareSegments(documentOrder(body, a.segments), documentOrder(body, b.segments))
        : compareSegments(a.segments, b.segments)),
  );
  const first = ranked[0];
  return first && describe(first, bodyName, bodyType);
}

function describe({ error, segments, stage }: Ranked, bodyName: string, bodyType: string): BodyProblem {
  const field = segments.length ? segments.join('.') : bodyName;
  const parent = (error.parentSchema ?? {}) as Record<string, unknown>;
  const value = goValue(error.data, parent.type === 'integer');
  if (error.keyword === discriminatorKeyword) return discriminatorProblem(error, segments);
  if (stage === 1) {
    const reason = `parsing ${bodyName} body from "" failed, because ${decodeFailure(error, segments, bodyType)}`;
    return { kind: 'parse', cause: { field, reason, value } };
  }
  const validation = (reason: string, shown = value): BodyProblem => ({ kind: 'validation', cause: { field, reason: `${field} in body ${reason}`, value: shown } });
  const limit = (error.params as { limit?: number }).limit ?? 0;
  switch (error.keyword) {
    case 'required':
    case 'type':
    case 'not':
      // A missing property, or null where Go then holds a nil pointer.
      return validation('is required', '<nil>');
    case 'enum':
      return validation(`should be one of ${goList((error.params as { allowedValues: unknown[] }).allowedValues)}`);
    case 'const':
      return validation(`should be one of ${goList([(error.params as { allowedValue: unknown }).allowedValue])}`);
    case 'format':
      return validation(`must be of type ${String(error.schema)}: ${goQuote(String(error.data))}`);
    case 'minLength':
      return validation(`should be at least ${limit} chars long`);
    case 'maxLength':
      return validation(`should be at most ${limit} chars long`);
    case 'minimum':
      return validation(`should be greater than or equal to ${goFloat(limit)}`);
    case 'exclusiveMinimum':
      return validation(`should be greater than ${goFloat(limit)}`);
    case 'maximum':
      return validation(`should be less than or equal to ${goFloat(limit)}`);
    case 'exclusiveMaximum':
      return validation(`should be less than ${goFloat(limit)}`);
    case 'minItems':
      return validation(`should have at least ${limit} items`);
    case 'maxItems':
      return validation(`should have at most ${limit} items`);
    case 'uniqueItems':
      return validation(`shouldn't contain duplicates`);
    case 'pattern':
      return validation(`should match '${String(error.schema)}'`);
    case 'multipleOf':
      return validation(`should be a multiple of ${goFloat(Number(error.schema))}`);
    default:
      return validation(error.message ?? 'is invalid');
  }
}

/**
 * Go reads the discriminator into a string first: missing or empty is "required"; an unknown value has no type to
 * decode into, which v1.1.8 answers as a body it could not parse (posture check create and posture responses).
 */
function discriminatorProblem(error: ErrorObject, segments: readonly string[]): BodyProblem {
  const rule = error.schema as DiscriminatorRule;
  const field = [...segments, rule.property].join('.');
  const value = (error.data as Record<string, unknown>)[rule.property];
  if (value === undefined || value === null || value === '') {
    return { kind: 'validation', cause: { field, reason: `${field} in body is required`, value: '' } };
  }
  if (typeof value !== 'string') {
    const reason = `json: cannot unmarshal ${jsonKind(value, 'string')} into Go struct field .${rule.property} of type string`;
    return { kind: 'parse', cause: { field, reason, value: goValue(value) } };
  }
  return { kind: 'parse', cause: { field, reason: `invalid ${rule.property} value: ${goQuote(value)}`, value } };
}

/** Go's json.UnmarshalTypeError text, with the Go types approximated from the schema. */
function decodeFailure(error: ErrorObject, segments: readonly string[], bodyType: string): string {
  const schema = (error.parentSchema ?? {}) as Record<string, unknown>;
  if (error.keyword === 'format') {
    const format = String(error.schema);
    if (format === 'date-time') return `parsing time ${goQuote(String(error.data))}: not a valid date-time`;
    if (format === 'byte') return `illegal base64 data in ${goQuote(String(error.data))}`;
  }
  const target = goType(schema);
  const kind = jsonKind(error.data, String(schema.type));
  return segments.length
    ? `json: cannot unmarshal ${kind} into Go struct field ${bodyType}.${segments.join('.')} of type ${target}`
    : `json: cannot unmarshal ${kind} into Go value of type ${target === 'struct' ? bodyType : target}`;
}

function jsonKind(value: unknown, targetType: string): string {
  // Go names the number when it does not fit the integer; its exact digits are lost here, so Go's %v of the float.
  if (typeof value === 'number') return targetType === 'integer' && !Number.isSafeInteger(value) ? `number ${goFloat(value)}` : 'number';
  if (typeof value === 'boolean') return 'bool';
  if (Array.isArray(value)) return 'array';
  return typeof value === 'object' ? 'object' : 'string';
}

function goType(schema: Record<string, unknown>): string {
  switch (schema.type) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
    case 'integer':
      return schema.format === 'int32' ? 'int32' : 'int64';
    case 'number':
      return schema.format === 'float' ? 'float32' : 'float64';
    case 'array':
      return `[]${goType((schema.items ?? {}) as Record<string, unknown>)}`;
    case 'object':
      return schema.properties ? 'struct' : 'map[string]interface {}';
    default:
      return 'interface {}';
  }
}
