// One ajv instance per API holding two converted schema documents (request and response mode, see
// convert-schema.ts); each operation's body and response validators compile on first use and are cached by ajv.
import { Ajv, type ValidateFunction } from 'ajv';
import formatsPlugin from 'ajv-formats';
import type { ApiName, OperationSpec } from './contract-types.js';
import {
  convertDefinitions,
  convertSchema,
  createConvertContext,
  discriminatorKeyword,
  integerBitsKeyword,
  type DiscriminatorRule,
  type JsonSchema,
  type SchemaMode,
} from './convert-schema.js';
import { isRecord, operationKeys, readContractDocument, type SwaggerDocument } from './read-contract.js';

const documentNames: Record<ApiName, string> = {
  client: 'edge-client',
  management: 'edge-management',
  fabric: 'fabric',
};

export function requestSchemaId(api: ApiName): string {
  return `${documentNames[api]}-request`;
}

function responseSchemaId(api: ApiName): string {
  return `${documentNames[api]}-response`;
}

const instances = new Map<string, Ajv>();

/**
 * The ajv instance of one API, with both schema documents registered (nothing compiled yet). `allErrors: false`
 * stops at the first error: the cheap check every request body gets before the full one ranks a failure.
 */
export function ajvFor(api: ApiName, allErrors = true): Ajv {
  const key = `${api}:${allErrors}`;
  let ajv = instances.get(key);
  if (!ajv) {
    ajv = createContractAjv(allErrors);
    const document = readContractDocument(api);
    ajv.addSchema(schemaDocument(document, 'request', requestSchemaId(api)));
    ajv.addSchema(schemaDocument(document, 'response', responseSchemaId(api)));
    instances.set(key, ajv);
  }
  return ajv;
}

/** The request body validator, or undefined when the operation takes no body. */
export function bodyValidator(op: OperationSpec, allErrors = true): ValidateFunction | undefined {
  return ajvFor(op.api, allErrors).getSchema(`${requestSchemaId(op.api)}#/operations/${op.operationId}/body`);
}

/** The validator for a declared response (`"200"`, `"default"`); undefined when it is undeclared or has no schema. */
export function responseValidator(op: OperationSpec, status: string): ValidateFunction | undefined {
  return ajvFor(op.api).getSchema(`${responseSchemaId(op.api)}#/operations/${op.operationId}/responses/${status}`);
}

function schemaDocument(document: SwaggerDocument, mode: SchemaMode, id: string): JsonSchema {
  const ctx = createConvertContext(document.definitions, mode, id);
  const operations: Record<string, JsonSchema> = {};
  for (const item of Object.values(document.paths)) {
    for (const key of operationKeys) {
      const operation = item[key];
      if (!isRecord(operation) || typeof operation.operationId !== 'string') continue;
      operations[operation.operationId] =
        mode === 'request' ? requestPart(item, operation, ctx) : responsePart(operation, ctx);
    }
  }
  return { $id: id, definitions: convertDefinitions(ctx), operations };
}

function requestPart(
  item: Record<string, unknown>,
  operation: Record<string, unknown>,
  ctx: ReturnType<typeof createConvertContext>,
): JsonSchema {
  const parameters = [item.parameters, operation.parameters].flatMap((list): unknown[] =>
    Array.isArray(list) ? list : [],
  );
  const body = parameters.find((parameter) => isRecord(parameter) && parameter.in === 'body');
  return isRecord(body) ? { body: convertSchema(body.schema, ctx) } : {};
}

function responsePart(operation: Record<string, unknown>, ctx: ReturnType<typeof createConvertContext>): JsonSchema {
  const responses = isRecord(operation.responses) ? operation.responses : {};
  const converted: Record<string, JsonSchema> = {};
  for (const [status, response] of Object.entries(responses)) {
    if (isRecord(response) && response.schema !== undefined) converted[status] = convertSchema(response.schema, ctx);
  }
  return { responses: converted };
}

// Go's strfmt layouts for date-time: RFC 3339 with or without fraction, offset or seconds, and ISO 8601 variants.
const dateTime =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?(?:[Zz]|[+-]\d{2}(?::?\d{2})?)?$/;
const uuid =
  /^(?:urn:uuid:)?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$|^\{[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\}$|^[0-9a-f]{32}$/i;

function isDateTime(text: string): boolean {
  const match = dateTime.exec(text);
  if (!match) return false;
  const [month = 0, day = 0, hour = 0, minute = 0, second = 0] = match.slice(2).map((part) => Number(part ?? 0));
  // Date.parse too, because handlers read the value with it: an offset such as +99:99 would be an Invalid Date.
  return (
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= 31 &&
    hour < 24 &&
    minute < 60 &&
    second < 60 &&
    !Number.isNaN(Date.parse(text))
  );
}

/** Go's url.Parse accepts almost anything: no control characters, and `%` must start an escape. */
function isGoUrl(text: string): boolean {
  for (const char of text) {
    const code = char.charCodeAt(0);
    if (code < 0x20 || code === 0x7f) return false;
  }
  return !/%(?![0-9a-fA-F]{2})/.test(text);
}

/**
 * Whether a decoded JSON number fits a Go int32 or int64. The int64 maximum, 2^63 - 1, reads as 2^63 in a JS
 * number, so 2^63 is let through: a client sending the maximum must not be refused.
 */
function fitsGoInteger(value: number, bits: number): boolean {
  return bits === 32 ? value >= -(2 ** 31) && value <= 2 ** 31 - 1 : value >= -(2 ** 63) && value <= 2 ** 63;
}

/** An ajv instance with the formats and the discriminator keyword the converted schemas rely on. */
export function createContractAjv(allErrors = true): Ajv {
  // strictNumbers: Infinity (what JSON.parse makes of 1e400) is no number, as Go's decoder refuses it.
  const ajv = new Ajv({ strict: false, strictNumbers: true, allErrors, verbose: true, validateSchema: false });
  // ajv-formats is a CommonJS module: the plugin is its default export's `default` under NodeNext typings.
  formatsPlugin.default(ajv, { mode: 'fast' });
  // Permissive where Go's strfmt is: relative links (`./identities/x`), dashless uuids, dates without offsets.
  ajv.addFormat('date-time', { type: 'string', validate: isDateTime });
  ajv.addFormat('uuid', { type: 'string', validate: (text) => uuid.test(text) });
  ajv.addFormat('uri', { type: 'string', validate: isGoUrl });
  ajv.addFormat('url', { type: 'string', validate: isGoUrl });
  ajv.addKeyword({
    keyword: integerBitsKeyword,
    schemaType: 'number',
    validate: (bits: number, data: unknown) => typeof data !== 'number' || fitsGoInteger(data, bits),
  });
  ajv.addKeyword({
    keyword: discriminatorKeyword,
    schemaType: 'object',
    validate: (rule: DiscriminatorRule, data: unknown) => {
      if (!isRecord(data)) return true;
      const value = data[rule.property];
      return typeof value === 'string' && rule.values.includes(value);
    },
  });
  return ajv;
}
