// Checks a reply against the contract: the status must be declared and the body must match its schema.
import type { ErrorObject } from 'ajv';
import type { OperationSpec } from './contract-types.js';
import { discriminatorKeyword, type DiscriminatorRule } from './convert-schema.js';
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
    const rule = error.schema as DiscriminatorRule;
    const value = (error.data as Record<string, unknown>)[rule.property];
    return `${where} ${rule.property} ${JSON.stringify(value) ?? 'undefined'} names no subtype of ${rule.base}`;
  }
  return `${where} ${error.message ?? error.keyword}`;
}
