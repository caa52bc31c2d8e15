// Turns ajv's errors for a request body into the one field cause upstream reports, in upstream's order:
// the discriminator is read first, then Go's JSON decoder fails on the first mistyped value in document order
// (a parse error), and only then go-swagger's Validate() runs, property by property in alphabetical order.
import type { ErrorObject } from 'ajv';
import type { FieldCause, OperationSpec, ParameterSpec, RequestFailureKind } from './contract-types.js';
import { discriminatorKeyword, goTypeKeyword, goTypeName, integerBitsKeyword } from './convert-schema.js';
import { isRecord, readContractDocument } from './read-contract.js';
import { goFloat, goList, goQuote, goValue } from '../../lib/go-format.js';

export interface BodyProblem {
  cause: FieldCause;
  kind: RequestFailureKind;
}

/**
 * How go-swagger names a body in its messages. A body whose schema is a `$ref` decodes into a `rest_model` type; an
 * inline schema's fields are validated under the parameter's name (`updbCredentials.password`); a discriminated
 * body (posture checks and responses) is decoded by a hand-written unmarshaller that adds no "parsing … body"
 * prefix and decodes into anonymous structs.
 */
export interface BodyNaming {
  name: string;
  /** The Go type the body decodes into (`ConfigTypeCreate`); undefined for an inline schema. */
  type: string | undefined;
  /** The discriminator property when the body (or each of its items) is polymorphic. */
  discriminator: string | undefined;
  /** The body is a list of such items (`posture-response-bulk`). */
  isList: boolean;
}

export function bodyNaming(op: OperationSpec, parameter: ParameterSpec): BodyNaming {
  const schema = isRecord(parameter.schema) ? parameter.schema : {};
  const isList = schema.type === 'array';
  const ref = isList ? recordOr(schema.items).$ref : schema.$ref;
  const definition = typeof ref === 'string' ? ref.slice(ref.lastIndexOf('/') + 1) : undefined;
  const declared = definition === undefined ? undefined : readContractDocument(op.api).definitions[definition];
  const discriminator =
    isRecord(declared) && typeof declared.discriminator === 'string' ? declared.discriminator : undefined;
  const type = definition === undefined || isList ? undefined : goTypeName(definition);
  return { name: parameter.name, type, discriminator, isList };
}

/** Go's decoder on JSON text that does not parse. go-swagger decodes a stream, so cut-off text is "unexpected EOF". */
export function unparsableBodyReason(naming: BodyNaming | undefined, syntaxError: string): string {
  const reason = /end of JSON input|Unterminated string/.test(syntaxError) ? 'unexpected EOF' : syntaxError;
  return naming?.discriminator ? reason : `parsing ${naming?.name ?? 'body'} body from "" failed, because ${reason}`;
}

/** Keywords that only wrap other results (if/then/else, allOf dispatch); their children carry the real errors. */
const wrapperKeywords = new Set(['if', 'anyOf', 'oneOf', 'allOf', '$ref', 'then', 'else']);
/** Formats whose Go types decode themselves, so a bad value fails while decoding, not while validating. */
const decodedFormats = new Set(['date-time', 'byte', 'int32', 'int64']);

/** A schema or value read as an object; anything else as an empty one (every property absent). */
const recordOr = (value: unknown): Record<string, unknown> => (isRecord(value) ? value : {});

/** One of ajv's per-keyword error parameters (`missingProperty`, `limit`, `allowedValues`, …). */
const paramOf = (error: ErrorObject, name: string): unknown => recordOr(error.params)[name];

interface Ranked {
  error: ErrorObject;
  segments: string[];
  stage: number;
}

function pathSegments(error: ErrorObject): string[] {
  const segments =
    error.instancePath === ''
      ? []
      : error.instancePath
          .slice(1)
          .split('/')
          .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'required') segments.push(String(paramOf(error, 'missingProperty')));
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
  for (const [i, x] of a.entries()) {
    const y = b[i];
    if (y === undefined) break;
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
    } else if (isRecord(node)) {
      const index = Object.keys(node).indexOf(segment);
      order.push(index < 0 ? Number.MAX_SAFE_INTEGER : index);
      node = node[segment];
    } else {
      order.push(Number.MAX_SAFE_INTEGER);
    }
  }
  return order;
}

/** The error upstream would report first, rendered as its field cause. */
export function firstBodyProblem(
  errors: readonly ErrorObject[],
  body: unknown,
  naming: BodyNaming,
): BodyProblem | undefined {
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
  return first && describe(first, naming);
}

function describe({ error, segments, stage }: Ranked, naming: BodyNaming): BodyProblem {
  // Each item of a list body validates itself, without its position; an inline schema's fields carry its name.
  const inBody = naming.isList ? segments.slice(1) : naming.type === undefined ? [naming.name, ...segments] : segments;
  const field = inBody.length ? inBody.join('.') : naming.name;
  const value = goValue(error.data, recordOr(error.parentSchema).type === 'integer');
  if (error.keyword === discriminatorKeyword) return discriminatorProblem(error, segments);
  if (stage === 1) {
    const failure = decodeFailure(error, segments, naming);
    const reason = naming.discriminator ? failure : `parsing ${naming.name} body from "" failed, because ${failure}`;
    return { kind: 'parse', cause: { field, reason, value } };
  }
  const validation = (reason: string, shown = value): BodyProblem => ({
    kind: 'validation',
    cause: { field, reason: `${field} in body ${reason}`, value: shown },
  });
  const limitParam = paramOf(error, 'limit');
  const limit = typeof limitParam === 'number' ? limitParam : 0;
  switch (error.keyword) {
    case 'required':
    case 'type':
    case 'not':
      // A missing property, or null: Go then holds a nil pointer (`<nil>`) or, for a list, a nil slice (`[]`).
      return validation('is required', isListValued(error) ? '[]' : '<nil>');
    case 'enum':
      return validation(`should be one of ${goList([paramOf(error, 'allowedValues')].flat())}`);
    case 'const':
      return validation(`should be one of ${goList([paramOf(error, 'allowedValue')])}`);
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
  // The keyword's schema is the DiscriminatorRule convert-schema.ts put there.
  const property = String(recordOr(error.schema).property);
  const field = [...segments, property].join('.');
  const value = recordOr(error.data)[property];
  if (value === undefined || value === null || value === '') {
    return { kind: 'validation', cause: { field, reason: `${field} in body is required`, value: '' } };
  }
  if (typeof value !== 'string') {
    const reason = `json: cannot unmarshal ${jsonKind(value, 'string')} into Go struct field .${property} of type string`;
    return { kind: 'parse', cause: { field, reason, value: goValue(value) } };
  }
  return { kind: 'parse', cause: { field, reason: `invalid ${property} value: ${goQuote(value)}`, value } };
}

function isListValued(error: ErrorObject): boolean {
  const parent = recordOr(error.parentSchema);
  if (error.keyword !== 'required') return parent.type === 'array';
  return recordOr(recordOr(parent.properties)[String(paramOf(error, 'missingProperty'))]).type === 'array';
}

/**
 * Go's json.UnmarshalTypeError text, with the Go types approximated from the schema. Go's field path leaves out
 * list positions; a discriminated body decodes into anonymous structs (an empty struct name) after a first pass
 * that reads only the discriminator.
 */
function decodeFailure(error: ErrorObject, segments: readonly string[], naming: BodyNaming): string {
  const schema = recordOr(error.parentSchema);
  if (error.keyword === 'format') {
    const format = String(error.schema);
    if (format === 'date-time') return `parsing time ${goQuote(String(error.data))}: not a valid date-time`;
    if (format === 'byte') return `illegal base64 data in ${goQuote(String(error.data))}`;
  }
  const target = goType(schema);
  const kind = jsonKind(error.data, String(schema.type));
  const fields = segments.filter((segment) => !/^\d+$/.test(segment));
  if (fields.length > 0) {
    const struct = naming.discriminator ? '' : (naming.type ?? '');
    return `json: cannot unmarshal ${kind} into Go struct field ${struct}.${fields.join('.')} of type ${target}`;
  }
  return `json: cannot unmarshal ${kind} into Go value of type ${rootType(naming, segments.length > 0, target)}`;
}

function rootType(naming: BodyNaming, isItem: boolean, target: string): string {
  if (naming.discriminator && (isItem || !naming.isList)) {
    const goField = naming.discriminator.charAt(0).toUpperCase() + naming.discriminator.slice(1).replace(/Id$/, 'ID');
    return `struct { ${goField} string "json:\\"${naming.discriminator}\\"" }`;
  }
  if (naming.discriminator) return '[]json.RawMessage';
  return target === 'struct' && naming.type ? `rest_model.${naming.type}` : target;
}

function jsonKind(value: unknown, targetType: string): string {
  // Go names the number when it does not fit the integer; its exact digits are lost here, so Go's %v of the float.
  if (typeof value === 'number')
    return targetType === 'integer' && !Number.isSafeInteger(value) ? `number ${goFloat(value)}` : 'number';
  if (typeof value === 'boolean') return 'bool';
  if (Array.isArray(value)) return 'array';
  return typeof value === 'object' ? 'object' : 'string';
}

function goType(schema: Record<string, unknown>): string {
  if (typeof schema[goTypeKeyword] === 'string') return schema[goTypeKeyword];
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
      return `[]${goType(recordOr(schema.items))}`;
    case 'object':
      return schema.properties ? 'struct' : 'map[string]interface {}';
    default:
      return 'interface {}';
  }
}
