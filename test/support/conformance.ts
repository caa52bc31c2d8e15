// The one conformance helper every API test goes through: it sends a request with inject() and checks the
// reply against the contract — the declared status set, the response schema, the exact JSON content type and
// the error envelope — before the test looks at anything else.
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { loadContract, validateResponse, type OperationSpec } from '../../src/http/spec/load-spec.js';
import { cleanPath, routedPath } from '../../src/http/request-path.js';
import { fabricFrameworkErrorMeta, isFabricPath, versionMeta } from '../../src/http/envelope.js';

export interface CallOptions {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS' | 'HEAD';
  url: string;
  token?: string;
  headers?: Record<string, string>;
  /** An object is sent as JSON; a string as is (set content-type yourself). */
  payload?: unknown;
  /** The client's address as the server sees it (default 127.0.0.1). */
  remoteAddress?: string;
}

export interface CallResult {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  text: string;
  body: unknown;
  operation: OperationSpec | undefined;
}

const operations = (['client', 'management', 'fabric'] as const)
  .flatMap((api) => loadContract(api).operations.map((op) => ({ op, base: loadContract(api).basePath })))
  .map(({ op, base }) => ({
    op,
    pattern: new RegExp(
      `^${cleanPath(`${base}${op.routePath}`)
        .replace(/:[^/]+/g, '[^/]+')
        .replace(/\./g, '\\.')}$`,
    ),
  }));

/** The operation a URL lands on, after the same rewrites and path cleaning the server applies. */
export function operationFor(method: string, url: string): OperationSpec | undefined {
  const path = routedPath(url.split('?')[0]!);
  return operations.find(({ op, pattern }) => op.method === method && pattern.test(path))?.op;
}

export async function call(app: FastifyInstance, options: CallOptions): Promise<CallResult> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers['zt-session'] = options.token;
  let payload: string | undefined;
  if (options.payload !== undefined) {
    if (typeof options.payload === 'string') payload = options.payload;
    else {
      payload = JSON.stringify(options.payload);
      headers['content-type'] ??= 'application/json';
    }
  }
  const response = await app.inject({
    method: options.method,
    url: options.url,
    headers,
    ...(payload !== undefined ? { payload } : {}),
    ...(options.remoteAddress ? { remoteAddress: options.remoteAddress } : {}),
  });
  const contentType = String(response.headers['content-type'] ?? '');
  const isJson = contentType.startsWith('application/json');
  const body: unknown = isJson && response.body !== '' ? JSON.parse(response.body) : undefined;
  const operation = operationFor(options.method, options.url);
  const result: CallResult = {
    status: response.statusCode,
    headers: response.headers,
    text: response.body,
    body,
    operation,
  };
  checkConformance(result, options);
  return result;
}

function checkConformance(result: CallResult, options: CallOptions): void {
  const where = `${options.method} ${options.url} → ${result.status}`;
  if (options.method === 'OPTIONS' || options.method === 'HEAD') return;
  if (isEmptyPemError(result, options)) return;
  if (result.status >= 400 || result.body !== undefined) {
    // Upstream's Content-Type is exactly application/json; SDKs compare the string.
    if (result.status >= 400 || typeof result.body === 'object') {
      assert.equal(result.headers['content-type'], 'application/json', `${where}: content type`);
    }
  }
  if (result.status >= 400)
    checkErrorEnvelope(result.body, where, isFabricPath(routedPath(options.url.split('?')[0]!)));
  if (!result.operation) {
    assert.ok(
      result.status === 404 || result.status === 405,
      `${where}: a request outside the contract must be 404 or 405`,
    );
    return;
  }
  if (result.body === undefined) return;
  const problems = validateResponse(result.operation, result.status, result.body);
  assert.deepEqual(problems, [], `${where}: response does not match ${result.operation.operationId}'s schema`);
}

/**
 * Upstream's PEM producer cannot write an error, so a client that accepts PEM but not JSON gets the status with an
 * empty `application/x-pem-file` body; allowed only where the operation produces PEM and JSON was not accepted.
 */
function isEmptyPemError(result: CallResult, options: CallOptions): boolean {
  const accept = Object.entries(options.headers ?? {}).find(([name]) => name.toLowerCase() === 'accept')?.[1];
  return isEmptyPemReply(
    result.operation,
    accept,
    result.status,
    String(result.headers['content-type'] ?? ''),
    result.text,
  );
}

/** The rule above on a reply's parts, for tests that send requests without `call` (the fuzz test). */
export function isEmptyPemReply(
  op: OperationSpec | undefined,
  accept: string | undefined,
  status: number,
  contentType: string,
  text: string,
): boolean {
  const acceptsJson = accept === undefined || /(^|,)\s*(application\/json|\*\/\*)\s*(;|,|$)/.test(accept);
  const isPemError = status >= 400 && contentType === 'application/x-pem-file' && text === '';
  return isPemError && !acceptsJson && (op?.produces.includes('application/x-pem-file') ?? false);
}

/** `isFabric`: the fabric API's framework refusals carry its own versions (src/http/envelope.ts). */
function checkErrorEnvelope(body: unknown, where: string, isFabric = false): void {
  const envelope = body as { error?: Record<string, unknown>; meta?: Record<string, unknown> };
  assert.ok(envelope?.error, `${where}: error envelope`);
  assert.equal(typeof envelope.error.code, 'string', `${where}: error.code`);
  assert.equal(typeof envelope.error.message, 'string', `${where}: error.message`);
  assert.equal(typeof envelope.error.requestId, 'string', `${where}: error.requestId`);
  const metas = [versionMeta, ...(isFabric ? [fabricFrameworkErrorMeta] : [])].map((meta) => JSON.stringify(meta));
  assert.ok(metas.includes(JSON.stringify(envelope.meta)), `${where}: error meta ${JSON.stringify(envelope.meta)}`);
}

/** Asserts an error reply's status and code (and the cause's field, when given). */
export function assertError(result: CallResult, status: number, code: string, field?: string): void {
  const error = (result.body as { error: { code: string; cause?: { field?: string } } }).error;
  assert.equal(result.status, status, `expected ${status} ${code}, got ${result.status} ${result.text}`);
  assert.equal(error.code, code);
  if (field !== undefined) assert.equal(error.cause?.field, field);
}
