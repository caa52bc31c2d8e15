// Checks a reply against the contract: the status must be declared and the body must match its schema.
import type { ErrorObject } from 'ajv';
import type { OperationSpec } from './contract-types.js';
import { discriminatorKeyword } from './convert-schema.js';
import { isRecord } from './read-contract.js';
import { responseValidator } from './operation-validators.js';

const wrapperKeywords = new Set(['if', 'anyOf', 'oneOf', 'allOf', '$ref', 'then', 'else']);

/** [] when the body matches the schema declared for the status (or for `default`); one message per problem otherwise. */
export function validateResponse(op: OperationSpec, status: number, body: unknown): string[] {
  const exact = op.responseStatuses.includes(status) ? String(status) : undefined;
  const declared = exact ?? (hasDefault(op) ? 'default' : undefined);
  if (!declared) {
    return [`status ${status} is not declared for ${op.operationId} (declared: ${op.responseStatuses.join(', ')})`];
  }
  const validate = responseValidator(op, declared);
  if (!validate || validate(body)) return [];
  const messages = (validate.errors ?? []).filter((error) => !wrapperKeywords.has(error.keyword)).map(describe);
  return [...new Set(messages)];
}

function hasDefault(op: OperationSpec): boolean {
  return responseValidator(op, 'default') !== undefined;
}

function describe(error: ErrorObject): string {
  const where = error.instancePath === '' ? '(root)' : error.instancePath;
  if (error.keyword === discriminatorKeyword) {
    // The keyword's schema is the DiscriminatorRule convert-schema.ts put there.
    const rule = isRecord(error.schema) ? error.schema : {};
    const property = String(rule.property);
    const value = isRecord(error.data) ? error.data[property] : undefined;
    return `${where} ${property} ${JSON.stringify(value) ?? 'undefined'} names no subtype of ${String(rule.base)}`;
  }
  return `${where} ${error.message ?? error.keyword}`;
}
