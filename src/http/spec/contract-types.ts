// The shapes the rest of the server sees of the API contract: operations, parameters and validation results.

/** The two edge APIs and the fabric management API (`/fabric/v1`). */
export type ApiName = 'client' | 'management' | 'fabric';
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface ParameterSpec {
  name: string;
  in: 'path' | 'query' | 'header' | 'body';
  required: boolean;
  /** JSON schema for ajv. A body schema's `$ref`s point into the API's request schema document (see `operation-validators.ts`). */
  schema: object;
  /** How an array parameter arrives (Swagger 2.0 `collectionFormat`; `csv` when the document says nothing). */
  collectionFormat?: 'csv' | 'ssv' | 'tsv' | 'pipes' | 'multi';
}

export interface OperationSpec {
  api: ApiName;
  operationId: string;
  method: HttpMethod;
  /** Swagger form: `/identities/{id}`. */
  path: string;
  /** Fastify form: `/identities/:id`. */
  routePath: string;
  /** Security is `[]` or absent. */
  isPublic: boolean;
  consumes: string[];
  produces: string[];
  parameters: ParameterSpec[];
  responseStatuses: number[];
}

export interface Contract {
  api: ApiName;
  basePath: string;
  version: string;
  /** The stripped Swagger 2.0 document, as served by `/specs/{id}/spec`. */
  document: object;
  operations: OperationSpec[];
}

/** go-openapi's field error; `value` is Go's `%v` rendering (`<nil>`, `[a b]`, `map[k:v]`). */
export interface FieldCause {
  field: string;
  reason: string;
  value: string;
}

export interface RequestParts {
  params: Record<string, string>;
  query: Record<string, string | string[] | undefined>;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON value for JSON content types, the text otherwise, `undefined` when there is none. */
  body: unknown;
  contentType: string | undefined;
  /** The request carried a non-empty body. */
  hasBody: boolean;
}

export interface CoercedRequest {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  headers: Record<string, unknown>;
  body: unknown;
}

/**
 * `validation` becomes COULD_NOT_VALIDATE; `parse` is what Go's JSON decoder (or a header parser) rejects before any
 * validation runs, which upstream answers as COULD_NOT_PARSE_BODY with `cause.reason` as the message.
 */
export type RequestFailureKind = 'validation' | 'parse';

export type RequestValidation =
  { ok: true; value: CoercedRequest } | { ok: false; cause: FieldCause; kind: RequestFailureKind };
