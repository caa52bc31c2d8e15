// Makes one exchange's two replies comparable: values that legitimately differ between two controllers (ids,
// timestamps, tokens, request ids, fingerprints, certificates, JWT signatures, versions, the base URL) become
// placeholders; lists the request did not sort are put in name order. What is left should be equal.
import { parse as parseYaml } from 'yaml';
import type { Exchange, RunState } from './steps.js';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export interface Side {
  exchange: Exchange;
  state: RunState;
}

export interface NormalisedReply {
  status: number;
  contentType: string;
  /** The normalised JSON body, or a normalised description of a non-JSON body. */
  body: Json | undefined;
}

const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
/** Go's time.Time.String(), as upstream's field causes show a time. */
const GO_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d+)? [+-]\d{4} [A-Z]+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const JWT = /^eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*$/;
const PEM = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----\n?/g;
const FINGERPRINT = /^[0-9a-f]{40}$/i;
const ID_KEY = /^(id|.+Id)$/;
const IDS_KEY = /^.+Ids$/;
const VERSION_KEYS = new Set(['version', 'revision', 'buildDate', 'runtimeVersion']);
const EPOCH_CLAIMS = new Set(['exp', 'iat', 'nbf']);
const SET_KEYS = new Set(['configs']);

export function normalisePair(upstream: Side, ours: Side): [NormalisedReply, NormalisedReply] {
  const [u, o] = [upstream, ours].map(prepare) as [Prepared, Prepared];
  // Ids both controllers answer with literally (built-in config types, "default", identity types) stay as they are;
  // every other id gets a number by order of first appearance.
  const shared = new Set(u.ids.filter((id) => o.ids.includes(id)));
  return [finish(u, shared), finish(o, shared)];
}

/**
 * One reply alone (the wire record, test/upstream/wire-record.ts): as in a pair, except that no id is known to be
 * shared, so every generated id is numbered, built-in ones included.
 */
export function normaliseOne(side: Side): NormalisedReply {
  return finish(prepare(side), new Set());
}

interface Prepared {
  side: Side;
  contentType: string;
  body: Json | undefined;
  ids: string[];
}

function prepare(side: Side): Prepared {
  const { reply, request } = side.exchange;
  const contentType = (reply.contentType ?? '').split(';')[0]!.trim();
  const named = (text: string) => withBase(side.state.withNames(text), side.state.peer.baseUrl);
  if (reply.json === undefined) {
    // A bare JWT (a CA's enrollment JWT) is compared like any JWT: header and claims.
    const text = reply.text.trim();
    const body = JWT.test(text) ? mapStrings(decodeJwt(text), named) : describeText(contentType, named(reply.text));
    return { side, contentType, body, ids: collectIds(body ?? null) };
  }
  let body = sortNamedSets(sortFilterableFields(mapStrings(expandJwts(summariseSpec(reply.json as Json)), named)));
  if (!/[?&]sort=/.test(request.path)) body = sortData(body);
  return { side, contentType, body, ids: collectIds(body) };
}

function finish(prepared: Prepared, shared: Set<string>): NormalisedReply {
  const { side, contentType } = prepared;
  const numbered = new Map<string, string>();
  for (const id of prepared.ids)
    if (!shared.has(id) && !numbered.has(id)) numbered.set(id, `<id:${numbered.size + 1}>`);
  const replaceIds = (text: string) => {
    let result = text;
    for (const [id, name] of [...numbered].sort((a, b) => b[0].length - a[0].length))
      result = result.split(id).join(name);
    return result;
  };
  const body = prepared.body === undefined ? undefined : placeholders(mapStrings(prepared.body, replaceIds), '');
  return { status: side.exchange.reply.status, contentType, body };
}

function withBase(text: string, baseUrl: string): string {
  const address = baseUrl.replace(/^https:\/\//, '');
  return text.split(baseUrl).join('<base>').split(address).join('<address>');
}

/** Applies `map` to every string and every object key. */
function mapStrings(value: Json, map: (text: string) => string): Json {
  if (typeof value === 'string') return map(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, map));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [map(key), mapStrings(item, map)]));
  }
  return value;
}

/** Lists come back in id order on both sides, and ids differ: compare them in name order instead. */
function sortData(body: Json): Json {
  if (body === null || typeof body !== 'object' || Array.isArray(body) || !Array.isArray(body.data)) return body;
  // Entities without a name (authenticators, enrollments) sort by what names them instead.
  const sortKey = (item: Json) => {
    const fields = item !== null && typeof item === 'object' && !Array.isArray(item) ? item : {};
    const identity =
      fields.identity !== null && typeof fields.identity === 'object' && !Array.isArray(fields.identity)
        ? fields.identity
        : {};
    const names = [fields.name, fields.username, fields.method, identity.name, fields.subject].map((value) =>
      typeof value === 'string' ? value : '',
    );
    // Then the content without what differs between the controllers; of two equal entities the named one first.
    const { id, _links: _ignoredLinks, createdAt: _ignoredCreated, updatedAt: _ignoredUpdated, ...content } = fields;
    const unnamed = typeof id === 'string' && !id.startsWith('<') ? 1 : 0;
    return `${names.join('\u0000')}\u0000${JSON.stringify(content)}\u0000${unnamed}`;
  };
  const data = [...body.data].sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : sortKey(a) > sortKey(b) ? 1 : 0));
  return { ...body, data };
}

const SET_MEMBER_KEYS = ['id', 'postureCheckId', 'policyId'];

/**
 * Lists inside a body whose members are entities the sequence named (posture queries, failed checks): both
 * controllers order them by id, and ids differ, so they are compared in name order. The top-level `data` list is
 * left to `sortData` (a request may have sorted it).
 */
function sortNamedSets(value: Json, isTop = true): Json {
  if (Array.isArray(value)) {
    const items = value.map((item) => sortNamedSets(item, false));
    const keyOf = (item: Json) => {
      if (item === null || typeof item !== 'object' || Array.isArray(item)) return undefined;
      const key = SET_MEMBER_KEYS.find((name) => typeof item[name] === 'string');
      const id = key === undefined ? undefined : (item[key] as string);
      return id?.startsWith('<') ? id : undefined;
    };
    if (isTop || items.length < 2 || !items.every((item) => keyOf(item) !== undefined)) return items;
    return [...items].sort((a, b) => (keyOf(a)! < keyOf(b)! ? -1 : keyOf(a)! > keyOf(b)! ? 1 : 0));
  }
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [key, sortNamedSets(item, isTop && key === 'data' ? true : false)]),
  );
}

/** Upstream lists filterable fields in Go map order, which changes from one request to the next. */
function sortFilterableFields(body: Json): Json {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const meta = body.meta;
  if (meta === null || typeof meta !== 'object' || Array.isArray(meta) || !Array.isArray(meta.filterableFields))
    return body;
  return { ...body, meta: { ...meta, filterableFields: [...meta.filterableFields].sort() } };
}

/** Values of `id`, `…Id` and `…Ids` fields not named by the sequence, in key order. */
function collectIds(value: Json, found: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((item) => collectIds(item, found));
  else if (value !== null && typeof value === 'object') {
    for (const key of Object.keys(value).sort()) {
      const item = value[key]!;
      if (ID_KEY.test(key) && typeof item === 'string' && isGenerated(item)) found.push(item);
      else if (IDS_KEY.test(key) && Array.isArray(item))
        item.forEach((id) => typeof id === 'string' && isGenerated(id) && found.push(id));
      collectIds(item, found);
    }
  }
  return found;
}

const isGenerated = (id: string) => id !== '' && !id.startsWith('<');

/** Key- and pattern-based placeholders; `key` is the field the value sits in. */
function placeholders(value: Json, key: string): Json {
  if (typeof value === 'string') return stringPlaceholder(value, key);
  if (typeof value === 'number' && EPOCH_CLAIMS.has(key)) return '<epoch>';
  if (Array.isArray(value)) {
    const items = value.map((item) => placeholders(item, ''));
    // Sets of ids: upstream keeps them in id order, which differs between the two controllers.
    return SET_KEYS.has(key) && items.every((item) => typeof item === 'string') ? [...items].sort() : items;
  }
  if (value === null || typeof value !== 'object') return value;
  const isVersion = 'apiVersions' in value;
  return Object.fromEntries(
    Object.entries(value).map(([field, item]) => [
      field,
      isVersion && VERSION_KEYS.has(field) && typeof item === 'string' ? '<version>' : placeholders(item, field),
    ]),
  );
}

export function stringPlaceholder(text: string, key: string): Json {
  if (key === 'requestId') return '<request-id>';
  if (text.startsWith('<') && text.endsWith('>')) return text;
  if (TIME.test(text)) return text.startsWith('0001-01-01') ? '<zero-time>' : '<time>';
  if (GO_TIME.test(text)) return '<go-time>';
  if (UUID.test(text)) return '<uuid>';
  if (FINGERPRINT.test(text) || /fingerprint/i.test(key)) return '<fingerprint>';
  if ((key === 'token' || key === 'verificationToken') && text !== '') return '<token>';
  return text.replace(PEM, (_block, label: string) => `<pem:${label}>`);
}

/** JWTs become their header and claims (then normalised like any body); the signature is not compared. */
function expandJwts(value: Json): Json {
  if (typeof value === 'string') return JWT.test(value) ? decodeJwt(value) : value;
  if (Array.isArray(value)) return value.map(expandJwts);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, expandJwts(item)]));
}

function decodeJwt(jwt: string): Json {
  const [header, payload] = jwt.split('.').map((part) => {
    try {
      return JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Json;
    } catch {
      return '<not json>';
    }
  });
  return { '<jwt>': { header: header!, claims: payload! } };
}

/** A served Swagger document (`/specs/{id}/spec`) compared by its outline, not line by line. */
function summariseSpec(body: Json): Json {
  if (body === null || typeof body !== 'object' || Array.isArray(body) || typeof body.swagger !== 'string') return body;
  const count = (part: Json | undefined) => (part !== null && typeof part === 'object' ? Object.keys(part).length : 0);
  const info = body.info as { version?: Json } | undefined;
  return {
    swaggerDocument: {
      swagger: body.swagger,
      version: info?.version ?? null,
      paths: count(body.paths),
      definitions: count(body.definitions),
    },
  };
}

/** Non-JSON bodies: what a client depends on (PKCS#7 framing, PEM count, image type), not the bytes. */
function describeText(contentType: string, text: string): Json | undefined {
  if (text === '') return undefined;
  if (contentType === 'application/pkcs7-mime') {
    const lines = text.split('\n');
    const widths = [...new Set(lines.slice(0, -2).map((line) => line.length))];
    return { pkcs7: { lineWidths: widths, endsWithNewline: text.endsWith('\n') } };
  }
  if (contentType.startsWith('image/')) return `<${contentType} image>`;
  // The spec as YAML: compared by its outline, like the JSON form (indentation and key order are the encoder's).
  if (contentType === 'text/yaml' || contentType === 'application/x-yaml')
    return summariseSpec(parseYaml(text) as Json);
  return text.replace(PEM, (_block, label: string) => `<pem:${label}>`);
}
