// The API contract as the server uses it: one OperationSpec per operation of the committed Swagger documents.
import { convertParameterSchema, convertSchema, createConvertContext } from './convert-schema.js';
import type { ApiName, Contract, HttpMethod, OperationSpec, ParameterSpec } from './contract-types.js';
import { requestSchemaId } from './operation-validators.js';
import { isOneOf, isRecord, operationKeys, readContractDocument, type SwaggerDocument } from './read-contract.js';

export type {
  ApiName,
  Contract,
  CoercedRequest,
  FieldCause,
  HttpMethod,
  OperationSpec,
  ParameterSpec,
  RequestFailureKind,
  RequestParts,
  RequestValidation,
} from './contract-types.js';
export { validateRequest } from './validate-request.js';
export { validateResponse } from './validate-response.js';

const contracts = new Map<ApiName, Contract>();

/** The contract of one API, built on first use and cached. */
export function loadContract(api: ApiName): Contract {
  let contract = contracts.get(api);
  if (!contract) {
    contract = buildContract(api, readContractDocument(api));
    contracts.set(api, contract);
  }
  return contract;
}

function buildContract(api: ApiName, document: SwaggerDocument): Contract {
  const bodySchemas = createConvertContext(document.definitions, 'request', requestSchemaId(api));
  const operations: OperationSpec[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    const shared = Array.isArray(item.parameters) ? item.parameters : [];
    for (const key of operationKeys) {
      const operation = item[key];
      if (!isRecord(operation)) continue;
      const own = Array.isArray(operation.parameters) ? operation.parameters : [];
      operations.push({
        api,
        operationId: String(operation.operationId),
        method: httpMethodOf(key),
        path,
        routePath: path.replace(/\{([^}]+)\}/g, ':$1'),
        isPublic: !Array.isArray(operation.security) || operation.security.length === 0,
        consumes: stringList(operation.consumes) ?? document.consumes ?? [],
        produces: stringList(operation.produces) ?? document.produces ?? [],
        parameters: mergeParameters(shared, own).map((parameter) =>
          parameterSpec(parameter, (schema) => convertSchema(schema, bodySchemas)),
        ),
        responseStatuses: Object.keys(isRecord(operation.responses) ? operation.responses : {})
          .filter((status) => /^\d{3}$/.test(status))
          .map(Number)
          .sort((a, b) => a - b),
      });
    }
  }
  return { api, basePath: document.basePath, version: document.info.version, document, operations };
}

function stringList(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : undefined;
}

/** Operation parameters override path-level ones with the same name and location (Swagger 2.0). */
function mergeParameters(shared: unknown[], own: unknown[]): Record<string, unknown>[] {
  const merged = new Map<string, Record<string, unknown>>();
  for (const parameter of [...shared, ...own]) {
    if (isRecord(parameter)) merged.set(`${String(parameter.in)}:${String(parameter.name)}`, parameter);
  }
  return [...merged.values()];
}

const collectionFormats = ['csv', 'ssv', 'tsv', 'pipes', 'multi'] as const;
const parameterLocations = ['path', 'query', 'header', 'body'] as const;
const httpMethods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** The committed contract uses these methods only; another one would be a route nobody serves, so boot fails. */
function httpMethodOf(key: string): HttpMethod {
  const method = key.toUpperCase();
  if (!isOneOf(httpMethods, method))
    throw new Error(`the contract declares a ${method} operation, which is not served`);
  return method;
}

function parameterSpec(parameter: Record<string, unknown>, convertBody: (schema: unknown) => object): ParameterSpec {
  const location = parameter.in;
  if (!isOneOf(parameterLocations, location))
    throw new Error(`the contract declares a parameter in ${String(location)}`);
  const spec: ParameterSpec = {
    name: String(parameter.name),
    in: location,
    required: location === 'path' || parameter.required === true,
    schema: location === 'body' ? convertBody(parameter.schema) : convertParameterSchema(parameter),
  };
  if (parameter.type === 'array') {
    const format = typeof parameter.collectionFormat === 'string' ? parameter.collectionFormat : 'csv';
    if (isOneOf(collectionFormats, format)) spec.collectionFormat = format;
  }
  return spec;
}
