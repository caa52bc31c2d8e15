// The success envelope `{data, meta}` and its serialisation (Go-like: compact, HTML not escaped, trailing newline).
import type { ApiName } from './spec/contract-types.js';
import { isJsonObject } from '../lib/object-path.js';

/** Every JSON envelope of the edge APIs carries these, as the seed documents require. */
export const versionMeta = { apiEnrollmentVersion: '0.0.1', apiVersion: '0.0.1' } as const;

/**
 * What go-openapi itself refuses on the fabric API (no route, wrong method, a request outside the contract) is
 * written by the fabric's own error mapper (`api_impl/responder.go` fabricResponseMapper, ApiVersion "1.0.0"); its
 * handlers' errors go through the edge request context and carry `versionMeta`.
 */
export const fabricFrameworkErrorMeta = { apiEnrollmentVersion: '1.0.0', apiVersion: '1.0.0' } as const;

/** True for paths the fabric API serves (`/fabric/v1/...`). */
export const isFabricPath = (path: string): boolean => path === '/fabric/v1' || path.startsWith('/fabric/v1/');

/**
 * The fabric API has no seed documents, so its success envelopes are upstream's: `meta` without the version fields
 * (`{}` on a detail, `{filterableFields, pagination}` on a list).
 */
export function isVersionedMeta(api: ApiName): boolean {
  return api !== 'fabric';
}

/** Upstream's unlimited page size (Go's int64 max), which a JS number cannot hold. */
const INT64_MAX = '9223372036854775807';

export interface Pagination {
  /** 'none' for `limit none` / `limit=-1`. */
  limit: number | 'none';
  offset: number;
  totalCount: number;
}

export interface Envelope {
  data: unknown;
  meta: Record<string, unknown>;
}

export function envelope(data: unknown, meta: Record<string, unknown> = {}): Envelope {
  return { data, meta: { ...versionMeta, ...meta } };
}

export function listEnvelope(data: unknown[], pagination: Pagination, filterableFields?: readonly string[]): Envelope {
  const meta: Record<string, unknown> = {};
  if (filterableFields && filterableFields.length > 0) meta.filterableFields = filterableFields;
  meta.pagination = { limit: pagination.limit, offset: pagination.offset, totalCount: pagination.totalCount };
  return envelope(data, meta);
}

/** `envelope` as one API writes it: the fabric's success meta has no version fields. */
export function envelopeOf(api: ApiName, data: unknown, meta: Record<string, unknown> = {}): Envelope {
  return isVersionedMeta(api) ? envelope(data, meta) : { data, meta };
}

/** `{"data":{},"meta":…}`: upstream's empty OK, as updates and deletes answer. */
export const emptyEnvelope = (api: ApiName = 'management'): Envelope => envelopeOf(api, {});

export function createdEnvelope(path: string, id: string): Envelope {
  return envelope({ _links: { self: { href: `./${path}/${id}` } }, id });
}

/**
 * Serialises a body as upstream's Go encoder does. The unlimited page size is int64 max, which a JS number
 * cannot hold, so `pagination.limit: 'none'` is written as the literal 9223372036854775807.
 */
export function serializeJson(body: unknown): string {
  const meta = isJsonObject(body) ? body.meta : undefined;
  const pagination = isJsonObject(meta) ? meta.pagination : undefined;
  if (!isJsonObject(body) || !isJsonObject(pagination) || pagination.limit !== 'none')
    return `${JSON.stringify(body)}\n`;
  const { data } = body;
  const metaText = JSON.stringify(meta).replace('"limit":"none"', `"limit":${INT64_MAX}`);
  return `{"data":${JSON.stringify(data)},"meta":${metaText}}\n`;
}

/** What never changes between requests of one operation, written once: the version meta, the filterable fields. */
export interface EnvelopeWriter {
  /** As `serializeJson(envelope(data))`, for an object `data`. */
  one(data: object): string;
  /** As `serializeJson(listEnvelope(data, pagination, filterableFields))`. */
  list(data: readonly unknown[], pagination: Pagination): string;
}

/** A whole number as JSON writes it (pagination figures are always whole). */
const integerText = (value: number): string => (Number.isFinite(value) ? String(value) : 'null');

/**
 * An operation's success envelopes written straight to text, byte for byte what serializeJson writes for the same
 * envelope (envelope.test.ts holds them side by side), without building the envelope or encoding its constant
 * parts again on every request. `data` goes through one JSON.stringify: on Node 20, serializers made per shape in
 * JavaScript (generated, or fast-json-stringify's) measured 1.3–1.6× slower than V8's own on identity and service
 * pages.
 */
export function envelopeWriter(filterableFields?: readonly string[], isVersioned = true): EnvelopeWriter {
  const version = isVersioned ? JSON.stringify(versionMeta).slice(1, -1) : '';
  const fields =
    filterableFields && filterableFields.length > 0 ? `"filterableFields":${JSON.stringify(filterableFields)}` : '';
  const listMeta = `,"meta":{${[version, fields, '"pagination":{"limit":'].filter(Boolean).join(',')}`;
  return {
    one: (value) => `{"data":${JSON.stringify(value)},"meta":{${version}}}\n`,
    list: (items, { limit, offset, totalCount }) =>
      `{"data":${JSON.stringify(items)}${listMeta}${limit === 'none' ? INT64_MAX : integerText(limit)},"offset":${integerText(offset)},"totalCount":${integerText(totalCount)}}}}\n`,
  };
}
