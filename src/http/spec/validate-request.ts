// Request validation against the contract, in go-openapi's order: Content-Type (only when there is a body), Accept,
// then every parameter in alphabetical order of name, as go-swagger's generated BindRequest binds them, the body
// included. Only the first problem is reported, as upstream does. Unknown query parameters are never rejected.
import { bindParameter } from './bind-parameter.js';
import { bodyNaming, firstBodyProblem } from './body-errors.js';
import type {
  CoercedRequest,
  FieldCause,
  OperationSpec,
  ParameterSpec,
  RequestParts,
  RequestValidation,
} from './contract-types.js';
import { goList, goQuote } from '../../lib/go-format.js';
import {
  defaultMime,
  isAllowedContentType,
  isJsonMediaType,
  negotiateContentType,
  parseMediaType,
} from './media-type.js';
import { bodyValidator } from './operation-validators.js';
import { useGoFieldNames } from './go-field-names.js';

function invalid(cause: FieldCause): RequestValidation {
  return { ok: false, cause, kind: 'validation' };
}

/** A body that is absent or empty counts as none (the C SDK sends `Content-Type: application/json` with no body). */
function hasContent(parts: RequestParts): boolean {
  const { body } = parts;
  if (!parts.hasBody || body === undefined) return false;
  if (typeof body === 'string') return body.length > 0;
  if (body instanceof Uint8Array) return body.length > 0;
  return true;
}

export function validateRequest(op: OperationSpec, parts: RequestParts): RequestValidation {
  const withBody = hasContent(parts);
  let mediaType = '';
  if (withBody) {
    const header = parts.contentType ?? '';
    const parsed = parseMediaType(header === '' ? defaultMime : header);
    if ('error' in parsed) {
      const reason = `parsing Content-Type header from ${goQuote(header)} failed, because ${parsed.error}`;
      return { ok: false, cause: { field: 'Content-Type', reason, value: header }, kind: 'parse' };
    }
    mediaType = parsed.mediaType;
    const consumes = routeMediaTypes(op.consumes);
    if (!isAllowedContentType(consumes, mediaType)) {
      const reason = `unsupported media type ${goQuote(mediaType)}, only ${goList(consumes)} are allowed`;
      return invalid({ field: 'Content-Type', reason, value: mediaType });
    }
  }
  const accept = lastValue(parts.headers.accept);
  const produces = routeMediaTypes(op.produces);
  if (negotiateContentType(accept, produces, mediaType) === '') {
    return invalid({
      field: 'Accept',
      reason: `unsupported media type requested, only ${goList(produces)} are available`,
      value: accept ?? '',
    });
  }

  const value: CoercedRequest = {
    params: { ...parts.params },
    query: { ...parts.query },
    headers: { ...parts.headers },
    body: parts.body,
  };
  for (const parameter of bindingOrder(op)) {
    const failure =
      parameter.in === 'body'
        ? checkBody(op, parameter, parts, withBody, mediaType)
        : bindInto(parameter, parts, value);
    if (failure) return failure;
  }
  return { ok: true, value };
}

/**
 * An operation's media types as upstream's router holds them: go-openapi's route builder appends the API's default
 * (`application/json`, go-swagger's defaultConsumes/defaultProduces) to every route's list unless already there
 * (runtime v0.28 `defaultRouteBuilder.AddRoute`), so `Accept: application/json` — which upstream's own Go client
 * sends on every request — passes even on `/.well-known/est/cacerts`. Remembered per list.
 */
function routeMediaTypes(declared: readonly string[]): readonly string[] {
  let route = routeLists.get(declared);
  if (!route) {
    const hasJson = declared.some((type) => type.toLowerCase() === 'application/json');
    routeLists.set(declared, (route = hasJson ? declared : [...declared, 'application/json']));
  }
  return route;
}

const routeLists = new WeakMap<readonly string[], readonly string[]>();

/** Each operation's parameters in the order they are bound, sorted once. */
const orders = new WeakMap<OperationSpec, readonly ParameterSpec[]>();

function bindingOrder(op: OperationSpec): readonly ParameterSpec[] {
  let ordered = orders.get(op);
  if (!ordered)
    orders.set(op, (ordered = [...op.parameters].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))));
  return ordered;
}

function lastValue(header: string | string[] | undefined): string | undefined {
  return Array.isArray(header) ? header[header.length - 1] : header;
}

function rawValues(parameter: ParameterSpec, parts: RequestParts): string[] | undefined {
  const source =
    parameter.in === 'path'
      ? parts.params[parameter.name]
      : parameter.in === 'query'
        ? parts.query[parameter.name]
        : parts.headers[parameter.name.toLowerCase()];
  if (source === undefined) return undefined;
  return Array.isArray(source) ? source : [source];
}

function bindInto(parameter: ParameterSpec, parts: RequestParts, value: CoercedRequest): RequestValidation | undefined {
  const bound = bindParameter(parameter, rawValues(parameter, parts));
  if (!bound.ok) return invalid(bound.cause);
  const target = parameter.in === 'path' ? value.params : parameter.in === 'query' ? value.query : value.headers;
  const key = parameter.in === 'header' ? parameter.name.toLowerCase() : parameter.name;
  // An empty optional value is "not given" upstream, so handlers see it as absent.
  if (bound.present) target[key] = bound.value;
  else delete target[key];
  return undefined;
}

function checkBody(
  op: OperationSpec,
  parameter: ParameterSpec,
  parts: RequestParts,
  withBody: boolean,
  mediaType: string,
): RequestValidation | undefined {
  if (!withBody) {
    // go-swagger passes "" as the value of a missing body.
    return parameter.required
      ? invalid({ field: parameter.name, reason: `${parameter.name} in body is required`, value: '' })
      : undefined;
  }
  // Non-JSON bodies (PEM, text) are read as text by Go's consumers; only JSON is decoded against the schema.
  if (!isJsonMediaType(mediaType)) return undefined;
  const quick = bodyValidator(op, false);
  if (!quick) return undefined;
  useGoFieldNames(op, parts.body);
  if (quick(parts.body)) return undefined;
  // Invalid: rank every error as upstream would, on the body with long arrays cut short, because ajv collecting
  // all errors of thousands of items costs seconds (its error lists grow by concatenation). Should the errors lie
  // only past the cut (or be the length itself), the first one found stands.
  const shortened = withShortArrays(parts.body);
  const validate = bodyValidator(op) ?? quick; // the same schema, so present as `quick` is
  const [errors, body] = validate(shortened) ? [quick.errors, parts.body] : [validate.errors, shortened];
  const problem = firstBodyProblem(errors ?? [], body, bodyNaming(op, parameter));
  return problem ? { ok: false, cause: problem.cause, kind: problem.kind } : undefined;
}

/** Arrays longer than this are cut to it before every error of an invalid body is collected. */
const RANKED_ITEMS = 100;

function withShortArrays(value: unknown): unknown {
  if (Array.isArray(value)) return value.slice(0, RANKED_ITEMS).map(withShortArrays);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withShortArrays(item)]));
}
