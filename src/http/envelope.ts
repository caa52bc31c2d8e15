// The success envelope `{data, meta}` and its serialisation (Go-like: compact, HTML not escaped, trailing newline).

/** Every JSON envelope carries these, as the seed documents require. */
export const versionMeta = { apiEnrollmentVersion: '0.0.1', apiVersion: '0.0.1' } as const;

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

export const emptyEnvelope = (): Envelope => envelope({});

export function createdEnvelope(path: string, id: string): Envelope {
  return envelope({ _links: { self: { href: `./${path}/${id}` } }, id });
}

/**
 * Serialises a body as upstream's Go encoder does. The unlimited page size is int64 max, which a JS number
 * cannot hold, so `pagination.limit: 'none'` is written as the literal 9223372036854775807.
 */
export function serializeJson(body: unknown): string {
  const pagination = (body as Partial<Envelope> | null)?.meta?.pagination as Pagination | undefined;
  if (pagination?.limit !== 'none') return `${JSON.stringify(body)}\n`;
  const { data, meta } = body as Envelope;
  const metaText = JSON.stringify(meta).replace('"limit":"none"', '"limit":9223372036854775807');
  return `{"data":${JSON.stringify(data)},"meta":${metaText}}\n`;
}
