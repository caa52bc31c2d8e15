// Content-Type and Accept handling as go-openapi's runtime does it (runtime.ContentType, validateContentType,
// NegotiateContentType), so the same requests pass and fail with the same messages.
import { LruMap } from '../../lib/lru-map.js';

/** Go's default when a request has a body but no Content-Type (runtime.DefaultMime). */
export const defaultMime = 'application/octet-stream';

const tspecials = new Set([...'()<>@,;:\\"/[]?=']);

function isTokenChar(char: string): boolean {
  const code = char.charCodeAt(0);
  return code > 0x20 && code < 0x7f && !tspecials.has(char);
}

function consumeToken(text: string): [string, string] {
  let end = 0;
  while (end < text.length && isTokenChar(text.charAt(end))) end += 1;
  return [text.slice(0, end), text.slice(end)];
}

/** mime.ParseMediaType's checks on the type part and its parameters; returns the lower-cased type or Go's error text. */
export function parseMediaType(value: string): { mediaType: string } | { error: string } {
  const [typePart = '', ...params] = value.split(';');
  const type = typePart.trim().toLowerCase();
  const [major, rest] = consumeToken(type);
  if (major === '') return { error: 'mime: no media type' };
  if (rest !== '') {
    if (!rest.startsWith('/')) return { error: 'mime: expected slash after first token' };
    const [minor, tail] = consumeToken(rest.slice(1));
    if (minor === '') return { error: 'mime: expected token after slash' };
    if (tail !== '') return { error: 'mime: unexpected content after media subtype' };
  }
  for (const param of params) {
    if (param.trim() === '') continue;
    const match = /^\s*([^\s=]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^\s";]+)\s*$/.exec(param);
    const name = match?.[1];
    if (name === undefined || consumeToken(name)[1] !== '') return { error: 'mime: invalid media parameter' };
  }
  return { mediaType: type };
}

/** validateContentType: exact (case-insensitive) match, `*\/*`, or a `type/*` entry. */
export function isAllowedContentType(allowed: readonly string[], mediaType: string): boolean {
  if (allowed.length === 0) return true;
  const lower = allowed.map((entry) => entry.toLowerCase());
  if (lower.includes(mediaType) || lower.includes('*/*')) return true;
  const parts = mediaType.split('/');
  return parts.length === 2 && lower.includes(`${parts[0]}/*`);
}

export function isJsonMediaType(mediaType: string): boolean {
  return mediaType === 'application/json' || mediaType.endsWith('+json');
}

interface AcceptSpec {
  value: string;
  q: number;
}

function parseAccept(header: string): AcceptSpec[] {
  const specs: AcceptSpec[] = [];
  for (const part of header.split(',')) {
    const [range = '', ...params] = part.split(';');
    const value = range.trim();
    if (value === '') continue;
    let q = 1;
    for (const param of params) {
      const [name, raw] = param.split('=').map((piece) => piece.trim());
      if (name === 'q' && raw !== undefined) q = Number(raw);
    }
    if (Number.isNaN(q) || q < 0) continue;
    specs.push({ value, q });
  }
  return specs;
}

/**
 * NegotiateContentType: the best offer the Accept header allows, `defaultOffer` when nothing matches, the first
 * offer when there is no Accept header. Upstream passes the request's own content type as the default (or "" when
 * it has no body), so only body-less requests can be refused for their Accept header.
 */
export function negotiateContentType(
  accept: string | undefined,
  offers: readonly string[],
  defaultOffer: string,
): string {
  // Every request negotiates, and clients send the same few Accept headers: remembered per operation's offers.
  let memo = negotiated.get(offers);
  // Bounded: a caller choosing Accept headers at will cannot grow it.
  if (!memo) negotiated.set(offers, (memo = new LruMap<string, string>(64)));
  const key = `${defaultOffer}\n${accept ?? ''}`;
  let chosen = memo.get(key);
  if (chosen === undefined) memo.set(key, (chosen = negotiate(accept, offers, defaultOffer)));
  return chosen;
}

const negotiated = new WeakMap<readonly string[], LruMap<string, string>>();

function negotiate(accept: string | undefined, offers: readonly string[], defaultOffer: string): string {
  const specs = accept ? parseAccept(accept) : [];
  let best = defaultOffer;
  let bestQ = -1;
  let bestWild = 3;
  for (const raw of offers) {
    if (specs.length === 0) return raw;
    const [offer = ''] = raw.split(';');
    for (const spec of specs) {
      if (spec.q === 0 || spec.q < bestQ) continue;
      if (spec.value === '*/*') {
        if (spec.q > bestQ || bestWild > 2) [bestQ, bestWild, best] = [spec.q, 2, raw];
      } else if (spec.value.endsWith('/*')) {
        if (offer.startsWith(spec.value.slice(0, -1)) && (spec.q > bestQ || bestWild > 1))
          [bestQ, bestWild, best] = [spec.q, 1, raw];
      } else if (spec.value === offer && (spec.q > bestQ || bestWild > 0)) {
        [bestQ, bestWild, best] = [spec.q, 0, raw];
      }
    }
  }
  return best;
}
